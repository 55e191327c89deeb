import { ApiKeySchema, DeviceCodeSchema, UserSchema } from "./foundation.js";

export * from "./foundation.js";

export const entities = [UserSchema, ApiKeySchema, DeviceCodeSchema];
