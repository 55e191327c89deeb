import { ApiKeyEntity, DeviceCodeEntity, UserEntity } from "./foundation.js";
import {
  AccountEntity,
  AnnotationEntity,
  CategoryEntity,
  CommentEntity,
  CounterpartyEntity,
  TagEntity,
  TransactionEntity,
} from "./ledger.js";
import { ConnectionEntity, SyncLogEntity, WebhookEventEntity } from "./sync.js";

export * from "./foundation.js";
export * from "./ledger.js";
export * from "./sync.js";

export const entities = [
  UserEntity,
  ApiKeyEntity,
  DeviceCodeEntity,
  CategoryEntity,
  TagEntity,
  CounterpartyEntity,
  AccountEntity,
  TransactionEntity,
  CommentEntity,
  AnnotationEntity,
  ConnectionEntity,
  SyncLogEntity,
  WebhookEventEntity,
];
