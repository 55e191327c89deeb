import http2 from "node:http2";
import type { H2Response } from "../helpers/h2.js";

/**
 * Raw HTTP/2 requests to the core over one kept session (a new session per
 * request costs more than most cases); a session the server ended is
 * replaced on the next request.
 */
export class H2Client {
  private session: http2.ClientHttp2Session | null = null;

  constructor(private readonly baseUrl: string) {}

  private open(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    // Node's client refuses to send a header block over 64 KiB by default; the core should judge what is sent.
    const session = http2.connect(this.baseUrl, { maxSendHeaderBlockLength: 1 << 20 });
    // A session-level failure surfaces on the streams; this keeps it from being an unhandled 'error'.
    session.on("error", () => undefined);
    this.session = session;
    return session;
  }

  request(req: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: Uint8Array;
  }): Promise<H2Response> {
    return new Promise((resolve, reject) => {
      const stream = this.open().request(
        { ":method": req.method ?? "POST", ":path": req.path, ...req.headers },
        { endStream: req.body === undefined },
      );
      const out: H2Response = { status: 0, headers: {}, body: Buffer.alloc(0), trailers: {} };
      const chunks: Buffer[] = [];
      const flat = (h: http2.IncomingHttpHeaders) =>
        Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]));
      stream.on("response", (h) => {
        out.status = Number(h[":status"]);
        out.headers = flat(h);
      });
      stream.on("trailers", (t) => {
        out.trailers = flat(t);
      });
      stream.on("data", (d: Buffer) => chunks.push(d));
      stream.on("end", () => resolve({ ...out, body: Buffer.concat(chunks) }));
      stream.on("error", reject);
      stream.setTimeout(15_000, () => stream.close(http2.constants.NGHTTP2_CANCEL));
      if (req.body !== undefined) stream.end(req.body);
    });
  }

  close() {
    this.session?.close();
  }
}
