import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { buildRestApp } from "../../gateways/rest/app.js";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { VERSION } from "../../common/version.js";

/** A gateway whose one route waits until the test lets it answer. */
async function slowGateway() {
  let entered!: () => void;
  const inHandler = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const app = await buildRestApp({
    core: coreClients(coreTransport("http://127.0.0.1:1")),
    version: VERSION,
    logger: false,
    routes: [
      {
        method: "GET",
        url: "/api/v1/slow",
        async handler() {
          entered();
          await gate;
          return { ok: true };
        },
      },
    ],
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, port: (app.server.address() as AddressInfo).port, inHandler, release };
}

const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`;

/** Everything the server writes on this socket until it closes it. */
function readAll(socket: Socket): Promise<string> {
  let data = "";
  socket.on("error", () => undefined); // a reset shows up as missing responses below
  socket.on("data", (c: Buffer) => (data += c.toString()));
  return new Promise((resolve) => socket.on("close", () => resolve(data)));
}

describe("REST gateway shutdown", () => {
  it("finishes an in-flight request, then closes", async () => {
    const { app, port, inHandler, release } = await slowGateway();
    const res = fetch(`http://127.0.0.1:${port}/api/v1/slow`);
    await inHandler;
    const closed = app.close();
    setTimeout(release, 50);
    expect((await res).status).toBe(200);
    expect(await (await res).json()).toEqual({ ok: true });
    // close() resolves once the connection that carried it is gone (no 72 s keep-alive wait).
    await expect(
      Promise.race([closed.then(() => "closed"), new Promise((r) => setTimeout(() => r("hung"), 3000))]),
    ).resolves.toBe("closed");
  });

  it("closes a busy keep-alive connection after its answer; one pipelined behind it is not half-served", async () => {
    const { app, port, inHandler, release } = await slowGateway();
    const socket = connect(port, "127.0.0.1");
    const all = readAll(socket);
    socket.write(request("/api/v1/slow"));
    await inHandler;
    const closed = app.close();
    socket.write(request("/api/v1/slow"));
    await new Promise((r) => setTimeout(r, 50));
    release();
    await closed;
    const responses = (await all).split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[0].toLowerCase()).toContain("connection: close");
    expect(responses[0]).toContain('{"ok":true}');
  });
});
