import { Agent, fetch, type Response } from "undici";
import { ProviderError } from "../provider.js";
import { readErrorBody, statusError, unavailable, type TellerErrorBody } from "./errors.js";
import type { TlsMaterial } from "./options.js";

/**
 * Teller over HTTPS with the application's client certificate (mTLS) and the
 * enrollment's access token as the Basic user name. Node's global fetch takes
 * no client certificate, so this is undici's fetch with an Agent that holds
 * it; otherwise it is shaped like the SimpleFIN client (one deadline for the
 * request and its body, failures as ProviderErrors without the token).
 */

export class TellerTimeout extends ProviderError {
  constructor() {
    super("unavailable", "PROVIDER_UNAVAILABLE", "Teller: the request timed out");
  }
}

/** A non-2xx answer, kept with its parsed error body so callers can act on one code (410 account.closed). */
export class TellerStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: TellerErrorBody,
    readonly providerError: ProviderError,
  ) {
    super(providerError.message);
  }
}

export class TellerHttp {
  private readonly agent: Agent;
  private readonly base: URL;

  constructor(
    baseUrl: string,
    tls: TlsMaterial,
    private readonly timeoutMs: number,
  ) {
    this.base = new URL(baseUrl.replace(/\/+$/, "") + "/");
    if (this.base.protocol !== "https:") {
      throw new ProviderError("misconfigured", "PROVIDER_MISCONFIGURED", "TELLER_BASE_URL must be an https URL");
    }
    this.agent = new Agent({ connect: { cert: tls.cert, key: tls.key, ca: tls.ca } });
  }

  /** The parsed JSON of a 2xx answer (null for 204); throws TellerStatusError, TellerTimeout or ProviderError. */
  async call(method: "GET" | "DELETE", path: string, token: string, query: Record<string, string> = {}) {
    const url = new URL(path.replace(/^\//, ""), this.base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const signal = AbortSignal.timeout(this.timeoutMs);
    const res = await this.send(method, url, token, signal);
    const body = await readText(res);
    const { status } = res;
    if (status === 204) return null;
    let json: unknown = undefined;
    if (body.length > 0) {
      try {
        json = JSON.parse(body);
      } catch {
        if (status >= 200 && status < 300) throw unavailable(`malformed JSON from ${method} ${url.pathname}`);
      }
    }
    if (status >= 200 && status < 300) {
      if (json === undefined) throw unavailable(`empty answer from ${method} ${url.pathname}`);
      return json;
    }
    const errorBody = readErrorBody(json);
    const retry = res.headers.get("retry-after") ?? "";
    const retryAfter = /^\d+$/.test(retry) ? Number(retry) : undefined;
    throw new TellerStatusError(status, errorBody, statusError(status, errorBody, retryAfter));
  }

  close(): void {
    void this.agent.close();
  }

  private async send(method: string, url: URL, token: string, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(url, {
        method,
        dispatcher: this.agent,
        // A redirect is an answer like any other non-2xx: Teller never sends one to a working call.
        redirect: "manual",
        signal,
        headers: {
          authorization: `Basic ${Buffer.from(`${token}:`).toString("base64")}`,
          accept: "application/json",
        },
      });
    } catch (err) {
      if (isTimeout(err)) throw new TellerTimeout();
      // undici's "fetch failed" keeps the reason (ECONNREFUSED, a refused certificate) in its cause.
      const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
      throw unavailable(`the request failed (${typeof cause?.code === "string" ? cause.code : "network error"})`);
    }
  }
}

const isTimeout = (err: unknown) => {
  const name = (err as Error | null)?.name;
  return name === "TimeoutError" || name === "AbortError";
};

/** The whole body, within the call's deadline. */
async function readText(res: Response): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    if (isTimeout(err)) throw new TellerTimeout();
    throw unavailable("the request failed (the answer was cut off)");
  }
}
