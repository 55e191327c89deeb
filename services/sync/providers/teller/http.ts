import { Agent, request } from "node:https";
import { ProviderError } from "../provider.js";
import { readErrorBody, statusError, unavailable, type TellerErrorBody } from "./errors.js";
import type { TlsMaterial } from "./options.js";

/**
 * Teller over HTTPS with the application's client certificate (mTLS) and the
 * enrollment's access token as the Basic user name. Node's global fetch takes
 * no client certificate, so this is node:https with a keep-alive agent.
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
    this.agent = new Agent({ keepAlive: true, cert: tls.cert, key: tls.key, ca: tls.ca });
  }

  /** The parsed JSON of a 2xx answer (null for 204); throws TellerStatusError, TellerTimeout or ProviderError. */
  async call(method: "GET" | "DELETE", path: string, token: string, query: Record<string, string> = {}) {
    const url = new URL(path.replace(/^\//, ""), this.base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const { status, headers, body } = await this.send(method, url, token);
    if (status === 204) return null;
    let json: unknown = undefined;
    if (body.length > 0) {
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        if (status >= 200 && status < 300) throw unavailable(`malformed JSON from ${method} ${url.pathname}`);
      }
    }
    if (status >= 200 && status < 300) {
      if (json === undefined) throw unavailable(`empty answer from ${method} ${url.pathname}`);
      return json;
    }
    const errorBody = readErrorBody(json);
    const retryAfter = /^\d+$/.test(headers["retry-after"] ?? "") ? Number(headers["retry-after"]) : undefined;
    throw new TellerStatusError(status, errorBody, statusError(status, errorBody, retryAfter));
  }

  close(): void {
    this.agent.destroy();
  }

  private send(method: string, url: URL, token: string) {
    type Answer = { status: number; headers: Record<string, string | undefined>; body: Buffer };
    return new Promise<Answer>((resolve, reject) => {
      let timedOut = false;
      const fail = (err: unknown) => {
        clearTimeout(timer);
        if (timedOut) reject(new TellerTimeout());
        else if (err instanceof ProviderError) reject(err);
        else reject(unavailable(`the request failed (${(err as NodeJS.ErrnoException).code ?? "network error"})`));
      };
      const req = request(url, {
        method,
        agent: this.agent,
        headers: {
          authorization: `Basic ${Buffer.from(`${token}:`).toString("base64")}`,
          accept: "application/json",
        },
      });
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, this.timeoutMs);
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", fail);
        res.on("close", () => {
          if (!res.complete) return fail(new Error("the answer was cut off"));
          clearTimeout(timer);
          const headers: Record<string, string | undefined> = {};
          for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v;
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      });
      req.on("error", fail);
      req.end();
    });
  }
}
