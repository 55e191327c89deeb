import type { FastifyServerOptions } from "fastify";

/**
 * Structured JSON logs (pino) for every process. Credentials travel only in
 * headers and bodies, neither of which is logged; the redact list is a second
 * line of defence in case a header ever is.
 */
export function loggerOptions(service: string, level = process.env.COFFER_LOG_LEVEL ?? "info"): FastifyServerOptions["logger"] {
  return {
    level,
    base: { service },
    redact: {
      paths: ['req.headers["x-api-key"]', "req.headers.authorization", "req.headers.cookie", "headers[\"x-api-key\"]"],
      censor: "[redacted]",
    },
  };
}
