// The API's answer shapes the console names, all taken from the types generated from the OpenAPI document
// (openapi.d.ts, `npm run openapi`); none is written by hand, so a changed answer breaks the type-check.
import type { components, paths } from "./openapi";

type Schemas = components["schemas"];

/** The JSON body of a path's success answer (200 or 201). */
type Answer<P extends keyof paths, M extends "get" | "post" | "patch" | "put"> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: { content: { "application/json": infer B } } }
    ? B
    : R extends { 201: { content: { "application/json": infer B } } }
      ? B
      : never
  : never;

export type Transaction = Schemas["Transaction"];
export type TransactionPage = Answer<"/api/v1/transactions", "get">;
export type Comment = Schemas["Comment"];
export type Annotation = Schemas["Annotation"];
export type Summary = Schemas["SummarizeTransactionsResponse"];
export type Category = Schemas["Category"];
export type Tag = Schemas["Tag"];
export type Account = Schemas["Account"];
export type User = Schemas["User"];
/** A connection as the listing shows it. */
export type Connection = Answer<"/api/v1/connections", "get">[number];
/** A single connection (GET /connections/{id} and every write): the listing's fields and `paused`. */
export type ConnectionDetail = Answer<"/api/v1/connections/{id}", "get">;
export type SyncLog = Schemas["SyncLog"];
export type Provider = Schemas["Provider"];
export type Rule = Schemas["Rule"];
export type RulePage = Answer<"/api/v1/rules", "get">;
export type Preview = Schemas["PreviewRuleResponse"];
export type ApiKey = Schemas["ApiKey"];
export type Login = Schemas["Login"];
export type CsvPreview = Schemas["PreviewCsvImportResponse"];
export type Session = Answer<"/api/v1/auth/session", "get">;
