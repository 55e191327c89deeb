import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { Http2SessionManager } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreSessionManager } from "../../gateways/shared/core-session.js";

/**
 * The gateways' HTTP/2 session to the core, against a plain Node HTTP/2
 * server that misbehaves the ways that wedged it: answering without reading
 * the request body (Node then resets the stream, and the client's session
 * keeps counting the unsent bytes), and taking a large body slowly while
 * other answers arrive.
 */
let server: http2.Http2Server;
let baseUrl: string;
/** How many HTTP/2 sessions the server has seen. */
let sessions = 0;

beforeAll(async () => {
  server = http2.createServer();
  server.on("session", () => sessions++);
  server.on("stream", (stream, headers) => {
    const path = headers[":path"];
    if (path === "/refuse") {
      // Answers at once and never reads the body, as the core's entry guard once did.
      stream.respond({ ":status": 401 });
      stream.end("no");
    } else if (path === "/slow") {
      // Takes its body in 64 KiB steps, one every 20 ms.
      stream.pause();
      const timer = setInterval(() => stream.read(), 20);
      stream.on("end", () => {
        clearInterval(timer);
        stream.respond({ ":status": 200 });
        stream.end("done");
      });
      stream.on("close", () => clearInterval(timer));
    } else {
      // Reads the body, then answers (as the core does).
      stream.resume();
      stream.on("end", () => {
        stream.respond({ ":status": 200 });
        stream.end("ok");
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** One request through the manager: the status, or the reset code the stream ended with. */
async function call(sm: Http2SessionManager, path: string, body: Buffer): Promise<string> {
  const stream = await sm.request("POST", path, {}, {});
  return new Promise((resolve) => {
    let status = 0;
    stream.on("response", (h) => (status = Number(h[":status"])));
    stream.on("error", () => undefined);
    stream.resume();
    stream.on("close", () => resolve(status ? String(status) : `rst ${stream.rstCode}`));
    stream.end(body);
  });
}

const MB = Buffer.alloc(1_000_000, 0x78);

describe("the gateways' HTTP/2 session to the core", () => {
  it("a plain session is wedged by a dozen unread 1 MB bodies (the failure this guards against)", async () => {
    const sm = new Http2SessionManager(baseUrl);
    const answers: string[] = [];
    for (let i = 0; i < 14; i++) answers.push(await call(sm, "/refuse", MB));
    answers.push(await call(sm, "/ok", Buffer.from("hi")));
    // NGHTTP2_ENHANCE_YOUR_CALM is 11: the session refuses the server's answers.
    expect(answers.at(-1)).toBe(`rst ${http2.constants.NGHTTP2_ENHANCE_YOUR_CALM}`);
    sm.abort();
  });

  it("is replaced when a stream closes with its body unsent, so unread bodies never add up", async () => {
    const sm = new CoreSessionManager(baseUrl);
    const before = sessions;
    const answers: string[] = [];
    for (let i = 0; i < 20; i++) answers.push(await call(sm, "/refuse", MB));
    expect(answers).toEqual(Array(20).fill("401"));
    expect(await call(sm, "/ok", Buffer.from("hi"))).toBe("200");
    expect(sm.retired.unsent_body).toBeGreaterThanOrEqual(1);
    expect(sessions - before).toBeGreaterThan(1);
    sm.abort();
  });

  it("is replaced at once when it refuses an answer (ENHANCE_YOUR_CALM), and the next call is answered", async () => {
    // A session allowed 1 MB holds a 4 MB body in flight: answers on it are refused while the body is sent.
    const sm = new CoreSessionManager(baseUrl, undefined, { maxSessionMemory: 1 });
    const upload = call(sm, "/slow", Buffer.alloc(4_000_000, 0x78));
    await new Promise((r) => setTimeout(r, 50));
    const refused = await call(sm, "/ok", Buffer.from("hi"));
    expect(refused).toBe(`rst ${http2.constants.NGHTTP2_ENHANCE_YOUR_CALM}`);
    expect(sm.retired.refused_answer).toBe(1);
    expect(await call(sm, "/ok", Buffer.from("hi"))).toBe("200");
    await upload;
    sm.abort();
  });

  it("does not replace a session that only carries answered calls", async () => {
    const sm = new CoreSessionManager(baseUrl);
    for (let i = 0; i < 20; i++) expect(await call(sm, "/ok", MB)).toBe("200");
    expect(sm.retired).toEqual({ refused_answer: 0, unsent_body: 0 });
    sm.abort();
  });
});
