import {
  ProviderError,
  type Credentials,
  type Enrollment,
  type LinkSession,
  type Provider,
  type ProviderAccount,
  type ProviderInfo,
  type ProviderName,
  type ProviderTransaction,
  type SyncPage,
  type WebhookEvent,
} from "../../services/sync/providers/provider.js";

/** A page as the test writes it: whatever it leaves out is empty. */
export type ScriptedPage = Partial<Omit<SyncPage, "nextCursor">>;

/**
 * A provider that implements the contract in memory, for testing the sync
 * engine without a provider's API: the test appends pages to a log, and a
 * sync returns the pages after the cursor (the cursor is a position in the
 * log, like Plaid's). It can fail, block after some pages, and count calls.
 */
export class ScriptedProvider implements Provider {
  readonly log: ScriptedPage[] = [];
  accountList: ProviderAccount[] = [account("acc-1")];
  syncCalls = 0;
  running = 0;
  maxRunning = 0;
  removed: Credentials[] = [];
  /** Thrown by the next call of the named method, then cleared. */
  failNext: { method: "sync" | "accounts" | "enroll" | "remove" | "link"; error: Error; afterPages?: number } | null =
    null;
  /** When set, a sync stops after yielding this many pages until `release()` is called. */
  private gate: { afterPages: number; opened: Promise<void>; open: () => void; reached: () => void } | null = null;
  private reachedGate: Promise<void> | null = null;
  webhook: ((headers: Record<string, string | undefined>, body: Buffer) => Promise<WebhookEvent>) | undefined;

  constructor(
    readonly name: ProviderName = "plaid",
    private readonly opts: { configured?: boolean; linkSession?: boolean } = {},
  ) {}

  info(): ProviderInfo {
    return {
      name: this.name,
      configured: this.opts.configured ?? true,
      needsLinkSession: this.opts.linkSession ?? true,
      capabilities: ["transactions", "balances"],
      credentialsSchema: {
        token: { type: "string", required: true, description: "a public token" },
        item: { type: "string", required: false, description: "which login" },
        days: { type: "integer", required: false, description: "history wanted" },
      },
    };
  }

  /** Adds pages to the provider's log. */
  push(...pages: ScriptedPage[]): this {
    this.log.push(...pages);
    return this;
  }

  /** The next sync stops after `afterPages` pages; resolves the returned promise when it gets there. */
  blockAfter(afterPages: number): Promise<void> {
    let open!: () => void;
    let reached!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    this.reachedGate = new Promise<void>((r) => (reached = r));
    this.gate = { afterPages, opened, open, reached };
    return this.reachedGate;
  }

  release(): void {
    this.gate?.open();
    this.gate = null;
  }

  private take(method: NonNullable<ScriptedProvider["failNext"]>["method"], pages = 0) {
    const f = this.failNext;
    if (f && f.method === method && (f.afterPages ?? 0) === pages) {
      this.failNext = null;
      throw f.error;
    }
  }

  async createLinkSession(input: { clientUserId: string; update?: Credentials }): Promise<LinkSession | null> {
    this.take("link");
    if (this.opts.linkSession === false) return null;
    return {
      linkToken: `link-${input.update ? "update" : "new"}-${input.clientUserId}`,
      expiration: new Date("2030-01-01T00:00:00Z"),
    };
  }

  async enroll(input: Credentials): Promise<Enrollment> {
    this.take("enroll");
    if (input.token === "bad") throw new ProviderError("invalid_input", "INVALID_PUBLIC_TOKEN", "the token is unknown");
    return {
      providerItemId: typeof input.item === "string" ? input.item : "item-1",
      institutionId: "ins_1",
      institutionName: "First Platypus Bank",
      credentials: { access_token: `access-${String(input.token)}` },
    };
  }

  async accounts(): Promise<ProviderAccount[]> {
    this.take("accounts");
    return this.accountList;
  }

  async *sync(_credentials: Credentials, cursor: string | null): AsyncIterable<SyncPage> {
    this.syncCalls++;
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      let yielded = 0;
      for (let i = cursor ? Number(cursor) : 0; i < this.log.length; i++) {
        this.take("sync", yielded);
        const gate = this.gate;
        if (gate && yielded === gate.afterPages) {
          gate.reached();
          await gate.opened;
        }
        const p = this.log[i];
        yield {
          added: p.added ?? [],
          modified: p.modified ?? [],
          removed: p.removed ?? [],
          windows: p.windows ?? [],
          skipped: p.skipped ?? [],
          nextCursor: String(i + 1),
        };
        yielded++;
      }
      this.take("sync", yielded);
    } finally {
      this.running--;
    }
  }

  async remove(credentials: Credentials): Promise<void> {
    this.take("remove");
    this.removed.push(credentials);
  }

  get verifyWebhook() {
    return this.webhook;
  }
}

export function account(id: string, over: Partial<ProviderAccount> = {}): ProviderAccount {
  return {
    providerAccountId: id,
    name: `Account ${id}`,
    officialName: null,
    type: "depository",
    subtype: "checking",
    mask: "0000",
    isoCurrencyCode: "USD",
    balanceCurrent: "100.00",
    balanceAvailable: "90.00",
    balanceLimit: null,
    ...over,
  };
}

let n = 0;

/** A transaction with defaults; `id` is the provider's transaction id. */
export function tx(id: string, over: Partial<ProviderTransaction> = {}): ProviderTransaction {
  n++;
  return {
    providerAccountId: "acc-1",
    providerTransactionId: id,
    amount: "12.34",
    isoCurrencyCode: "USD",
    date: "2026-03-01",
    authorizedDate: null,
    name: `Shop ${n}`,
    merchantName: null,
    categoryPrimary: null,
    categoryDetailed: null,
    pending: false,
    pendingTransactionId: null,
    ...over,
  };
}
