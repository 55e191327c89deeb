import type { IncomingHttpHeaders } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { MISSING_CREDENTIALS_MESSAGE } from "../../common/credentials.js";
import { envelope } from "./error-map.js";
import { sendEnvelope } from "./http-app.js";

/** The X-API-Key a request presents; an empty one is none (it is not passed on to the core). */
export function apiKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const key = headers["x-api-key"];
  return typeof key === "string" && key !== "" ? key : undefined;
}

/**
 * An onRequest hook that answers a request presenting no credential at all
 * (`has` says whether it presents one) with the core's own answer, 401
 * MISSING_CREDENTIALS, before its body is read. The core would refuse the
 * call anyway; forwarding its body first would only cost the gateway and the
 * core the reading of it, for every caller on the internet.
 */
export function refuseWithoutCredential(has: (req: FastifyRequest) => boolean) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!has(req)) return sendEnvelope(reply, envelope("MISSING_CREDENTIALS", MISSING_CREDENTIALS_MESSAGE));
  };
}
