import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server wrote before it closed the connection (or the wait ended). */
  raw: string;
}

/**
 * Writes bytes to a server as they are (fetch and inject cannot send malformed
 * HTTP) and reads its first answer: status, headers, and a body of
 * Content-Length bytes. Waits for the server to close or `waitMs` to pass.
 */
export function rawRequest(port: number, bytes: string | Buffer, waitMs = 3000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString("latin1");
      const headEnd = raw.indexOf("\r\n\r\n");
      const [statusLine, ...lines] = (headEnd === -1 ? raw : raw.slice(0, headEnd)).split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const rest = headEnd === -1 ? Buffer.alloc(0) : Buffer.from(raw.slice(headEnd + 4), "latin1");
      const length = Number(headers["content-length"] ?? rest.length);
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: rest.subarray(0, length).toString("utf8"),
        raw,
      });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (c) => chunks.push(c));
    socket.on("close", finish);
    // A server that answers early and closes may reset a socket still being written to.
    socket.on("error", (e: NodeJS.ErrnoException) =>
      e.code === "ECONNRESET" || e.code === "EPIPE" ? finish() : reject(e),
    );
    socket.write(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes);
  });
}
