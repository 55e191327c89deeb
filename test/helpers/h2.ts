import http2 from "node:http2";

export interface H2Response {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  trailers: Record<string, string>;
}

export interface H2Request {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
}

const flat = (h: http2.IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]));

/**
 * One raw HTTP/2 request on an open session, bytes exactly as given: for what
 * no Connect, gRPC or gRPC-Web client would send (garbage, broken frames, bad
 * headers). A stream that hangs is cancelled after 15 s.
 */
export function requestOn(session: http2.ClientHttp2Session, req: H2Request): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const stream = session.request(
      { ":method": req.method ?? "POST", ":path": req.path, ...req.headers },
      { endStream: req.body === undefined },
    );
    const out: H2Response = { status: 0, headers: {}, body: Buffer.alloc(0), trailers: {} };
    const chunks: Buffer[] = [];
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

/** One raw HTTP/2 (h2c) request on a session of its own. */
export async function h2Request(baseUrl: string, req: H2Request): Promise<H2Response> {
  const session = http2.connect(baseUrl);
  const failed = new Promise<never>((_, reject) => session.on("error", reject));
  try {
    return await Promise.race([requestOn(session, req), failed]);
  } finally {
    session.close();
  }
}

/** A gRPC / gRPC-Web / Connect-streaming frame: flags, big-endian length, message. */
export function frame(message: Uint8Array, flags = 0): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}
