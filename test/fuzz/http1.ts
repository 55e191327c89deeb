import { connect } from "node:net";

export interface Http1Answer {
  /** 0 when the server closed or stalled without an answer. */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The body of a chunked response. */
function unchunk(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = parseInt(buf.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * Sends one request exactly as given (malformed HTTP included) on a new
 * connection, and reads the first answer until the server closes the
 * connection (the request says `Connection: close`) or `timeoutMs` passes.
 */
export function sendHttp1(port: number, bytes: Buffer, timeoutMs = 15_000): Promise<Http1Answer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf("\r\n\r\n");
      if (headEnd === -1) return resolve({ status: 0, headers: {}, body: raw });
      const [statusLine, ...lines] = raw.subarray(0, headEnd).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      let body: Buffer = raw.subarray(headEnd + 4);
      if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = unchunk(body);
      else if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]));
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("close", finish);
    // A server that answers early (413, 431) may reset a socket still being written to.
    socket.on("error", finish);
    // Not end(): a client's half-close makes Node's server abort the request in flight.
    socket.write(bytes);
  });
}
