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
import { ReportEntity } from "./reports.js";
import { SeriesEntity } from "./series.js";
import { ConnectionEntity, SyncLogEntity, WebhookEventEntity } from "./sync.js";

export * from "./foundation.js";
export * from "./ledger.js";
export * from "./reports.js";
export * from "./series.js";
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
  ReportEntity,
  SeriesEntity,
  ConnectionEntity,
  SyncLogEntity,
  WebhookEventEntity,
];
