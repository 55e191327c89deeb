import http2 from "node:http2";
import { requestOn, type H2Request, type H2Response } from "../helpers/h2.js";

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

  request(req: H2Request): Promise<H2Response> {
    return requestOn(this.open(), req);
  }

  close() {
    this.session?.close();
  }
}
