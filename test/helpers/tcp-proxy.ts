import net from "node:net";

/**
 * A TCP proxy in front of a server (the shared PostgreSQL, which tests must
 * never stop). `cut()` drops every connection and refuses new ones, as a
 * database that restarts does; `hang()` drops every connection and then
 * accepts new ones but never answers, as a host that stopped responding does;
 * `restore()` forwards again on the same port.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private hanging = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(port = 0): Promise<number> {
    const server = net.createServer((client) => {
      this.sockets.add(client);
      client.on("close", () => this.sockets.delete(client));
      client.on("error", () => client.destroy());
      if (this.hanging) return;
      const upstream = net.connect(this.target.port, this.target.host);
      this.sockets.add(upstream);
      upstream.on("close", () => this.sockets.delete(upstream));
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ]) {
        a.pipe(b);
        a.on("error", () => b.destroy());
        a.on("close", () => b.destroy());
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  private dropAll(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  /** Drops every open connection and stops listening: new connections are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    this.dropAll();
    await closed;
  }

  /** Drops every open connection; new ones are accepted and never answered. */
  hang(): void {
    this.hanging = true;
    this.dropAll();
  }

  /** Forwards again: after `cut()` it listens again on the same port; after `hang()` it drops the held connections. */
  async restore(): Promise<void> {
    if (this.hanging) {
      this.hanging = false;
      this.dropAll();
    }
    if (!this.server) await this.start(this.port);
  }

  async close(): Promise<void> {
    this.hanging = false;
    await this.cut();
  }
}
