// The console's view of the API's paths. Until the generated document (web/src/api/openapi.d.ts, npm run openapi)
// is on main this is a loose stand-in; then this file becomes: export type { paths } from "../api/openapi";
interface LooseOperation {
  parameters: { query?: Record<string, unknown>; path?: Record<string, string> };
  requestBody?: { content: { "application/json": unknown } };
  responses: { default: { content: { "application/json": unknown } } };
}
interface LoosePathItem {
  get: LooseOperation;
  post: LooseOperation;
  put: LooseOperation;
  patch: LooseOperation;
  delete: LooseOperation;
}
export type paths = Record<`/api/v1/${string}`, LoosePathItem>;
