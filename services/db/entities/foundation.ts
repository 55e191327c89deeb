import { defineEntity, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { nowOf } from "../../clock.js";

/** A household member. */
export const UserEntity = defineEntity({
  name: "User",
  tableName: "users",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    name: p.text(),
    email: p.text().nullable(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p
      .datetime()
      .onCreate((_, em) => nowOf(em))
      .onUpdate((_, em) => nowOf(em)),
  }),
});
export type User = InferEntity<typeof UserEntity>;

import { API_KEY_SCOPES } from "../../../common/enums.js";
export { API_KEY_SCOPES };
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
import { ACTOR_TYPES } from "../../../common/enums.js";
export { ACTOR_TYPES };
export type ActorType = (typeof ACTOR_TYPES)[number];

/** An API key. Only its SHA-256 is stored; the plaintext is shown once at creation. */
export const ApiKeyEntity = defineEntity({
  name: "ApiKey",
  tableName: "api_keys",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    name: p.text(),
    scope: p.text().$type<ApiKeyScope>(),
    actorType: p.text().$type<ActorType>(),
    userId: p.uuid().nullable(),
    keyHash: p.string().length(64).unique(),
    keyPrefix: p.text(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  }),
});
export type ApiKey = InferEntity<typeof ApiKeyEntity>;

export type DeviceCodeStatus = "pending" | "approved" | "denied";

/**
 * A device-code login request. The device code itself is stored hashed (it is
 * a credential); the API key is created only at the first approved poll so its
 * plaintext is never stored anywhere.
 */
export const DeviceCodeEntity = defineEntity({
  name: "DeviceCode",
  tableName: "device_codes",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    deviceCodeHash: p.string().length(64).unique(),
    userCode: p.string().length(9).unique(),
    status: p.text().$type<DeviceCodeStatus>(),
    requestedName: p.text().nullable(),
    scope: p.text().$type<ApiKeyScope>().nullable(),
    name: p.text().nullable(),
    decidedByKeyId: p.uuid().nullable(),
    decidedAt: p.datetime().nullable(),
    apiKeyId: p.uuid().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type DeviceCode = InferEntity<typeof DeviceCodeEntity>;
