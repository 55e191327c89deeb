import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../helpers/stack.js";

/**
 * The core refuses a call without a valid key (or with too small a scope)
 * before reading its body. It must still take that body off the wire: an
 * unread body gets no flow-control credit, its stream is reset, and a Node
 * client's session keeps counting the unsent bytes until it refuses every
 * answer (ENHANCE_YOUR_CALM). Here one plain HTTP/2 session sends refused
 * 1 MB bodies straight to the core.
 */
let s: Stack;

beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

const CREATE_TAG = "/coffer.v1.TagService/CreateTag";
const LIST_TAGS = "/coffer.v1.TagService/ListTags";

interface Sent {
  status: number;
  /** Whether the whole request body went out before the stream closed. */
  bodySent: boolean;
  rstCode: number;
}

function send(session: http2.ClientHttp2Session, path: string, headers: object, body: Buffer): Promise<Sent> {
  const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/proto", ...headers });
  return new Promise((resolve) => {
    let status = 0;
    stream.on("response", (h) => (status = Number(h[":status"])));
    stream.on("error", () => undefined);
    stream.resume();
    stream.on("close", () => resolve({ status, bodySent: stream.writableFinished, rstCode: stream.rstCode ?? 0 }));
    stream.end(body);
  });
}

describe("a refused call's body", () => {
  it("is read to the end, so the caller's session stays healthy", async () => {
    const session = http2.connect(s.coreUrl);
    try {
      // A protobuf field 1 (string) of about 1 MB: what CreateTag would decode, had the key been good.
      const body = Buffer.concat([Buffer.from([0x0a, 0xc0, 0x84, 0x3d]), Buffer.alloc(1_000_000, 0x78)]);
      const results: Sent[] = [];
      for (let i = 0; i < 12; i++) results.push(await send(session, CREATE_TAG, {}, body));
      for (let i = 0; i < 12; i++) results.push(await send(session, CREATE_TAG, { "x-api-key": s.readKey }, body));
      expect(results.map((r) => r.status)).toEqual([...Array(12).fill(401), ...Array(12).fill(403)]);
      expect(results.every((r) => r.bodySent && r.rstCode === 0)).toBe(true);
      // 24 MB refused on this one session, and it still takes answers.
      const listed = await send(session, LIST_TAGS, { "x-api-key": s.readKey }, Buffer.alloc(0));
      expect(listed.status).toBe(200);
    } finally {
      session.destroy();
    }
  });
});
