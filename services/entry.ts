import type { DescMethod } from "@bufbuild/protobuf";
import {
  createAsyncIterable,
  encodeEnvelope,
  readAllBytes,
  type UniversalHandler,
  type UniversalServerRequest,
  type UniversalServerResponse,
} from "@connectrpc/connect/protocol";
import { kEm, kEntry, kPrincipal, type EntryState } from "./context.js";
import { CofferError } from "./errors/coffer-error.js";
import { authorizeCall, methodAccess } from "./interceptors/auth.js";
import { SESSION_HEADER } from "../common/session.js";
import { discardUnreadBody } from "./unread-body.js";
import type { ApiKeyCache } from "./auth/key-cache.js";

/**
 * The core's entry points, in front of Connect's own handling of each RPC
 * (every protocol: Connect JSON and binary, gRPC, gRPC-Web):
 *
 * 1. The API key is checked before the request body is read, so a caller
 *    without a valid key learns nothing about what it sent (401, never 400).
 *    The body of a call refused there (or by Connect outright) is still read
 *    and thrown away before the answer (unread-body.ts), so that it cannot
 *    clog the caller's HTTP/2 session.
 * 2. A request Connect cannot decode (garbage bytes, bad framing, invalid
 *    UTF-8) answers INVALID_BODY, instead of the bare `internal` Connect gives
 *    a failed decode; JSON with an unknown field answers INVALID_PARAMETER
 *    naming it, as the REST gateway does.
 *
 * Either way the answer must be framed the way the caller's protocol frames
 * errors, and carry the Coffer code like every error of the core (ErrorInfo
 * and the coffer-error-code header or trailer). Rather than writing each
 * protocol's error format again, the guard lets Connect write it: it replays
 * the call with an empty request message and the failure stored in the
 * context values, and the error interceptor raises that failure.
 *
 * A failed decode is recognised without looking into any protocol: Connect
 * decodes a unary request before the interceptors run, so if they never ran
 * and Connect did not refuse the method or content type outright, the
 * request could not be read. (A streaming RPC decodes its request inside the
 * interceptors; the error interceptor handles that case.)
 */

/** Connect's answers before any decoding: wrong HTTP method, unsupported content type or HTTP version. */
export const REFUSED_OUTRIGHT = new Set([405, 415, 505]);

/** protobuf-es's words for a JSON key the message does not have (Connect passes them on). */
export const UNKNOWN_JSON_FIELD = /cannot decode message ([\w.]+) from JSON: key "([^"]*)" is unknown/;

/** Headers describing the original body or deadline, which the empty replay must not inherit. */
const BODY_HEADERS = [
  "content-length",
  "content-encoding",
  "connect-content-encoding",
  "grpc-encoding",
  "connect-timeout-ms",
  "grpc-timeout",
];

/** The caller's request with an empty message in its place: a request every protocol decodes. */
function emptyRequest(req: UniversalServerRequest): UniversalServerRequest {
  const header = new Headers(req.header);
  for (const name of BODY_HEADERS) header.delete(name);
  const contentType = header.get("content-type") ?? "";
  let url = req.url;
  let json = /json/i.test(contentType);
  if (req.method === "GET") {
    // Connect's GET carries the message in the query string.
    const u = new URL(req.url);
    json = u.searchParams.get("encoding") === "json";
    u.searchParams.set("message", json ? "{}" : "");
    u.searchParams.delete("base64");
    u.searchParams.delete("compression");
    url = u.toString();
  }
  const message = new TextEncoder().encode(json ? "{}" : "");
  // gRPC, gRPC-Web and Connect streaming frame each message: flags (0) and length first.
  const framed = /^application\/(grpc|connect\+)/i.test(contentType);
  return { ...req, url, header, body: createAsyncIterable([framed ? encodeEnvelope(0, message) : message]) };
}

/** Answers the call with `failure`, in the caller's protocol, through Connect and the error interceptor. */
function answerWith(
  h: UniversalHandler,
  req: UniversalServerRequest,
  entry: EntryState,
  failure: unknown,
): Promise<UniversalServerResponse> {
  entry.failure = failure;
  return h(emptyRequest(req));
}

/** Connect's own words for a request it could not read, from its error response (best effort). */
async function connectReason(res: UniversalServerResponse): Promise<string | undefined> {
  const grpcMessage = res.trailer?.get("grpc-message") ?? res.header?.get("grpc-message");
  if (grpcMessage) return percentDecoded(grpcMessage);
  if (!res.body) return undefined;
  const bytes = await readAllBytes(res.body, 64 * 1024).catch(() => new Uint8Array());
  const contentType = res.header?.get("content-type") ?? "";
  const text = new TextDecoder().decode(bytes);
  if (/^application\/json/i.test(contentType)) {
    try {
      const parsed = JSON.parse(text) as { message?: unknown };
      return typeof parsed.message === "string" ? parsed.message : undefined;
    } catch {
      return undefined;
    }
  }
  // gRPC-Web sends its trailers as the last frame of the body, as text.
  const trailer = /grpc-message:[ \t]*([^\r\n]*)/i.exec(text)?.[1];
  return trailer ? percentDecoded(trailer) : undefined;
}

/** gRPC percent-encodes grpc-message. */
function percentDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The failure to answer for a request Connect could not read: INVALID_BODY,
 * except an unknown JSON field, which is refused as the REST gateway refuses
 * one (INVALID_PARAMETER naming the field).
 */
function undecodable(method: DescMethod, reason: string | undefined): CofferError {
  const unknown = reason && UNKNOWN_JSON_FIELD.exec(reason);
  if (unknown) {
    const where = unknown[1] === method.input.typeName ? "" : ` (in ${unknown[1]})`;
    return new CofferError("INVALID_PARAMETER", `unknown field ${unknown[2]}${where}`);
  }
  const why = reason ? `: ${reason.slice(0, 300)}` : "";
  return new CofferError("INVALID_BODY", `The request could not be read as a ${method.input.typeName}${why}`);
}

/** One RPC's handler behind the guard. */
function guard(h: UniversalHandler, keys: ApiKeyCache | undefined): UniversalHandler {
  methodAccess(h.method); // read the proto options now, not on the first call
  const handle = async (req: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const values = req.contextValues;
    const entry = values?.get(kEntry);
    const em = values?.get(kEm);
    // Without the context the server sets up there is nothing to check with; the auth
    // interceptor then refuses any method that needs a key (it fails closed).
    if (!values || !entry || !em) return h(req);
    try {
      const principal = await authorizeCall(
        em,
        h.method,
        {
          apiKey: req.header.get("x-api-key"),
          session: req.header.get(SESSION_HEADER),
        },
        keys,
      );
      if (principal) values.set(kPrincipal, principal);
    } catch (e) {
      await discardUnreadBody(req);
      return answerWith(h, req, entry, e);
    }
    let res: UniversalServerResponse;
    try {
      res = await h(req);
    } catch (e) {
      return answerWith(h, req, entry, e);
    }
    if (entry.reached) return res;
    if (REFUSED_OUTRIGHT.has(res.status)) {
      await discardUnreadBody(req);
      return res;
    }
    return answerWith(h, req, entry, undecodable(h.method, await connectReason(res)));
  };
  // Everything Connect's handler carries besides being a function (test/unit/connect-entry.test.ts pins the list).
  return Object.assign(handle, {
    service: h.service,
    method: h.method,
    requestPath: h.requestPath,
    supportedContentType: h.supportedContentType,
    protocolNames: h.protocolNames,
    allowedMethods: h.allowedMethods,
  });
}

/**
 * Puts every handler of a router behind the guard, which authenticates API
 * keys through `keys` (the core's cache) when given. connect-fastify registers
 * `router.handlers` after calling the routes function, so replacing them in
 * place (from inside that function) is what it serves.
 */
export function guardEntries(handlers: UniversalHandler[], keys?: ApiKeyCache): void {
  for (let i = 0; i < handlers.length; i++) handlers[i] = guard(handlers[i], keys);
}
