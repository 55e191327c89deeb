// The console's view of the API's paths: the types generated from the OpenAPI document (npm run openapi,
// web/src/api/openapi.d.ts). A route whose path, parameters or body change breaks the type-check here.
export type { paths } from "../api/openapi";
