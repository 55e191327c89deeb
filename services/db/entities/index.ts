import { ApiKeySchema, DeviceCodeSchema, UserSchema } from "./foundation.js";
import {
  AccountSchema,
  AnnotationSchema,
  CategorySchema,
  CommentSchema,
  CounterpartySchema,
  TagSchema,
  TransactionSchema,
} from "./ledger.js";

export * from "./foundation.js";
export * from "./ledger.js";

export const entities = [
  UserSchema,
  ApiKeySchema,
  DeviceCodeSchema,
  CategorySchema,
  TagSchema,
  CounterpartySchema,
  AccountSchema,
  TransactionSchema,
  CommentSchema,
  AnnotationSchema,
];
