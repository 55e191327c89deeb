import { randomUUID } from "node:crypto";
import { STATUS_CODES, maxHeaderSize, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { fastify, type FastifyInstance, type FastifyReply } from "fastify";
import type { TrustProxy } from "../../common/env.js";
import { loggerOptions, requestLogController, type LogStream } from "../../common/logging.js";
import { drainOnClose } from "./drain.js";
import { envelope, type MappedError } from "./error-map.js";
import { hostGuard, type HostGuardConfig } from "./host-guard.js";
import { BodyError, readJsonBody } from "./json-body.js";

export interface HttpAppOptions {
  service: "rest" | "mcp";
  logger?: boolean;
  logLevel?: string;
  /** Log lines go here instead of stdout (tests read them). */
  logStream?: LogStream;
  /** The largest body a route takes unless it sets its own (JSON_BODY_LIMIT by default). */
  bodyLimit?: number;
  /** The DNS-rebinding guard (host-guard.ts); by default, a gateway on 127.0.0.1 with the default public URL. */
  guard?: HostGuardConfig;
  /** Whose X-Forwarded-For gives req.ip (COFFER_TRUST_PROXY); default: nobody's, req.ip is the peer. */
  trustProxy?: TrustProxy;
}

const DEFAULT_GUARD: HostGuardConfig = {
  listenHost: "127.0.0.1",
  publicUrl: "http://localhost:8080",
  allowedHosts: [],
};

/**
 * The largest JSON body either gateway takes, unless a route sets its own
 * (the REST routes carrying a CSV file). fastify refuses a longer one with 413
 * before passing anything on: a Content-Length over it is refused unread, a
 * chunked body as soon as it grows past it.
 */
export const JSON_BODY_LIMIT = 1024 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const HEAD_LIMIT_KIB = Math.round(maxHeaderSize / 1024);

export function sendEnvelope(reply: FastifyReply, mapped: MappedError) {
  if (mapped.retryAfter !== undefined) reply.header("retry-after", String(mapped.retryAfter));
  return reply.status(mapped.status).type("application/json").send(mapped.body);
}

/** A whole HTTP/1.1 response carrying the envelope, for answers written straight to a socket. */
function rawResponse(mapped: MappedError): string {
  const body = JSON.stringify(mapped.body);
  return (
    `HTTP/1.1 ${mapped.status} ${STATUS_CODES[mapped.status]}\r\n` +
    `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `connection: close\r\n\r\n${body}`
  );
}

/**
 * For a request head over Node's limit (URL and headers together, 16 KiB):
 * did the request line alone not fit? Node reports both as one error; the
 * packet it was parsing tells them apart when it begins the request (a client
 * that sends its head in one write). Otherwise the headers are blamed.
 */
function requestLineTooLong(packet: Buffer | undefined): boolean {
  if (!packet || !/^[A-Z]+ /.test(packet.subarray(0, 16).toString("latin1"))) return false;
  const eol = packet.indexOf(0x0a);
  return eol === -1 || eol >= maxHeaderSize;
}

type ParseError = Error & { code?: string; reason?: unknown; rawPacket?: Buffer };

/** The envelope for a request Node's HTTP parser refused before any route could see it. */
export function clientErrorOf(err: ParseError): MappedError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return requestLineTooLong(err.rawPacket)
        ? envelope("URI_TOO_LONG", `The request URL is longer than ${HEAD_LIMIT_KIB} KiB`)
        : envelope("HEADERS_TOO_LARGE", `The request headers are larger than ${HEAD_LIMIT_KIB} KiB`);
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return envelope("REQUEST_TIMEOUT", "The request was not received in time");
    default: {
      // llhttp's reasons are fixed texts ("Invalid method encountered"), never the request's bytes.
      const reason = typeof err.reason === "string" ? `: ${err.reason.slice(0, 100)}` : "";
      return envelope("INVALID_REQUEST", `The request is not valid HTTP/1.1${reason}`);
    }
  }
}

/**
 * Writes the envelope to a socket whose request never reached fastify, then
 * closes it. If an earlier request on the socket is still being answered
 * (pipelining) and was read whole, the envelope waits for that answer; if the
 * bad bytes are in that request's own body, the envelope is its answer, unless
 * its response has already started (then the socket is only closed).
 */
function answerSocket(socket: Duplex, mapped: MappedError) {
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (inFlight && !inFlight.writableFinished && inFlight.req?.complete) {
    inFlight.once("finish", () => answerSocket(socket, mapped));
    inFlight.once("close", () => inFlight.writableFinished || socket.destroy());
    return;
  }
  if (!socket.writable || (inFlight && inFlight.headersSent && !inFlight.writableFinished))
    return void socket.destroy();
  socket.end(rawResponse(mapped), () => socket.destroy());
}

/**
 * The errors fastify raises while reading a request (body size, media type,
 * JSON) as envelopes; undefined for anything else.
 */
export function requestErrorOf(err: { code?: string; statusCode?: number }): MappedError | undefined {
  if (err instanceof BodyError) return envelope(err.code, err.message);
  switch (err.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return envelope("PAYLOAD_TOO_LARGE", "The request body is too large");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return envelope("UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return envelope("INVALID_BODY", "The request body is not valid JSON");
  }
  if (err.code?.startsWith("FST_ERR_CTP_") && (err.statusCode ?? 500) < 500)
    return envelope("INVALID_BODY", "The request body could not be read");
  return undefined;
}

/**
 * The fastify app both HTTP gateways are built on, answering with the
 * {error:{code,message}} envelope from the first byte:
 * - requests Node's parser refuses (unknown methods, raw bytes in the URL,
 *   Content-Length with Transfer-Encoding, bad chunks, folded headers) → 400
 *   INVALID_REQUEST; a head over 16 KiB → 414 URI_TOO_LONG or 431
 *   HEADERS_TOO_LARGE; an HTTP/1.1 request without Host → 400; CONNECT → 400;
 * - URLs the router cannot read (bad percent-encoding, a path parameter over
 *   100 characters) → 404 NOT_FOUND: no resource can have such a name;
 * - a body is read only as JSON (anything else → 415), strictly (json-body.ts).
 * - a Host (and, on MCP, an Origin) the gateway does not answer to → 403
 *   INVALID_HOST / ORIGIN_MISMATCH (host-guard.ts).
 * It also takes or makes the request id, echoes it as X-Request-Id, and drains on close.
 */
export function createHttpApp(o: HttpAppOptions): FastifyInstance {
  const app = fastify({
    logger: o.logger === false ? false : (loggerOptions(o.service, o.logLevel ?? "info", o.logStream) as object),
    logController: requestLogController(),
    bodyLimit: o.bodyLimit ?? JSON_BODY_LIMIT,
    trustProxy: o.trustProxy ?? false,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Shutdown lets in-flight requests finish (see drainOnClose).
    forceCloseConnections: "idle",
    return503OnClosing: false,
    // Node would answer a missing Host itself, with an empty body; the onRequest hook below answers instead.
    http: { requireHostHeader: false },
    // A request (head and body) must arrive within 2 minutes (the head alone: Node's 60 s), else 408 in
    // the envelope; fastify's default of 0 lets a client that never finishes its body hold a socket for ever.
    requestTimeout: 120_000,
    clientErrorHandler: (err: Error, socket) => {
      const e = err as ParseError;
      if (e.code === "ECONNRESET" || e.code === "EPIPE" || socket.destroyed) return void socket.destroy();
      const mapped = clientErrorOf(e);
      // A client's malformed bytes, not our failure: debug only, so a scanner cannot flood the log.
      app.log.debug({ code: e.code, status: mapped.status }, "refused a request Node could not parse");
      answerSocket(socket, mapped);
    },
    frameworkErrors: (err, req, reply) => {
      reply.header("x-request-id", req.id);
      if (err.code === "FST_ERR_BAD_URL" || err.code === "FST_ERR_MAX_PARAM_LENGTH")
        return void sendEnvelope(
          reply,
          envelope("NOT_FOUND", `No resource at ${req.method} ${req.url.split("?")[0].slice(0, 200)}`),
        );
      req.log.error({ err }, `router error in ${o.service} gateway`);
      void sendEnvelope(reply, envelope("INTERNAL_ERROR", "Internal error"));
    },
  });

  drainOnClose(app);

  // JSON only: without a text/plain parser, any other media type is FST_ERR_CTP_INVALID_MEDIA_TYPE (415).
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (req, body, done) => {
    const parse = (text: string) => {
      let out: { err: Error | null; value?: unknown } = { err: null };
      // fastify's parser is synchronous: it has called back before it returns.
      void parseJson(req, text, (err, value) => (out = { err, value: value as unknown }));
      if (out.err) throw out.err;
      return out.value;
    };
    try {
      done(null, readJsonBody(body as Buffer, parse));
    } catch (e) {
      done(e as Error, undefined);
    }
  });

  const guard = hostGuard(o.guard ?? DEFAULT_GUARD);
  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
    if (req.raw.httpVersion === "1.1" && req.headers.host === undefined)
      return sendEnvelope(reply, envelope("INVALID_REQUEST", "An HTTP/1.1 request needs a Host header"));
    const refused = guard(req.headers.host, req.headers.origin);
    if (refused) return sendEnvelope(reply, refused);
  });

  // CONNECT asks for a tunnel; Node drops the socket unanswered unless someone listens.
  app.server.on("connect", (_req: IncomingMessage, socket: Duplex) =>
    answerSocket(socket, envelope("INVALID_REQUEST", "This server is not a proxy: CONNECT is not supported")),
  );
  // An Expect other than 100-continue would get Node's bare 417; HTTP lets a server ignore it instead.
  app.server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) =>
    app.server.emit("request", req, res),
  );
  return app;
}
