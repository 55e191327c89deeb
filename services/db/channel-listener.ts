import pg from "pg";

/**
 * A connection of its own that LISTENs on one PostgreSQL channel. LISTEN
 * belongs to a session, so it cannot use a pooled connection. `onLost` hears
 * once of a connection that failed or ended (the caller decides whether to
 * open another); `connect()` resolves once it listens, or rejects.
 */
export class ChannelListener {
  private readonly client: pg.Client;
  private readonly channel: string;
  private lost = false;

  constructor(
    opts: { connectionString: string | undefined; applicationName: string; channel: string },
    private readonly handlers: { onNotify(payload: string | undefined): void; onLost(why: unknown): void },
  ) {
    this.channel = opts.channel;
    this.client = new pg.Client({ connectionString: opts.connectionString, application_name: opts.applicationName });
    this.client.on("error", (e) => this.fail(e));
    this.client.on("end", () => this.fail(new Error("connection ended")));
    this.client.on("notification", (n) => {
      if (n.channel === this.channel) handlers.onNotify(n.payload);
    });
  }

  private fail(why: unknown): void {
    if (this.lost) return;
    this.lost = true;
    void this.client.end().catch(() => undefined);
    this.handlers.onLost(why);
  }

  async connect(): Promise<void> {
    await this.client.connect();
    // A channel name is an identifier, not a value: it comes from our own constants, never from input.
    await this.client.query(`listen ${this.channel}`);
  }

  /** Ends the connection without telling onLost. */
  async end(): Promise<void> {
    this.lost = true;
    await this.client.end().catch(() => undefined);
  }
}
