import http2 from "node:http2";

export interface H2Response {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  trailers: Record<string, string>;
}

/**
 * One raw HTTP/2 (h2c) request, bytes exactly as given: for what no Connect,
 * gRPC or gRPC-Web client would send (garbage, broken frames, bad headers).
 */
export function h2Request(
  baseUrl: string,
  req: { method?: string; path: string; headers?: Record<string, string>; body?: Uint8Array },
): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(baseUrl);
    session.on("error", reject);
    const method = req.method ?? "POST";
    const stream = session.request(
      { ":method": method, ":path": req.path, ...req.headers },
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
    stream.on("end", () => {
      out.body = Buffer.concat(chunks);
      session.close();
      resolve(out);
    });
    stream.on("error", (e: Error) => {
      session.close();
      reject(e);
    });
    if (req.body !== undefined) stream.end(req.body);
  });
}

/** A gRPC / gRPC-Web / Connect-streaming frame: flags, big-endian length, message. */
export function frame(message: Uint8Array, flags = 0): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}
