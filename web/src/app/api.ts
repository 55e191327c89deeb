import createClient from "openapi-fetch";
// The client's paths come from the OpenAPI document (npm run openapi); a changed API breaks the type-check here.
import type { paths } from "./paths";

/** An error answer of the API: `{error:{code,message}}` with its HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** One client for the whole console: same origin, the session cookie travels with every call. */
export const api = createClient<paths>({ baseUrl: "/", credentials: "same-origin" });

/** Called when any request answers 401: the session module sends the person to the sign-in page. */
let onUnauthorized: (() => void) | null = null;
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

function errorOf(result: FetchResult): ApiError {
  const { response, error } = result;
  const env = (error ?? {}) as { error?: { code?: unknown; message?: unknown } };
  const code = typeof env.error?.code === "string" ? env.error.code : `HTTP_${response.status}`;
  const message =
    typeof env.error?.message === "string" ? env.error.message : `${response.status} ${response.statusText}`.trim();
  return new ApiError(response.status, code, message, response.headers.get("Retry-After") ?? undefined);
}

/** The success body of an openapi-fetch result, as the generated paths type it. */
export type AnswerOf<R> = R extends { data?: infer D } ? Exclude<D, undefined> : never;

/**
 * Awaits an openapi-fetch call and returns its success body, typed from the
 * generated paths (no cast at the call site), or throws an ApiError.
 */
export async function call<R extends FetchResult>(request: Promise<R>): Promise<AnswerOf<R>> {
  let result: FetchResult;
  try {
    result = await request;
  } catch (e) {
    throw new ApiError(0, "NETWORK_ERROR", `The server did not answer: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!result.response.ok) {
    const err = errorOf(result);
    if (err.status === 401 && onUnauthorized) onUnauthorized();
    throw err;
  }
  // A success answer is the body the path's 2XX response describes (response-check.ts holds the gateway to it).
  return result.data as AnswerOf<R>;
}
