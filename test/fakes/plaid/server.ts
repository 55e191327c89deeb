import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  Faults,
  applyTransportFault,
  close,
  daysAgo,
  listen,
  randomId,
  readBody,
  seededRandom,
  sendJson,
} from "../http.js";
import { defaultAccounts, generateTransactions, transaction, type PlaidAccount, type PlaidTxn } from "./data.js";

/**
 * A local Plaid: POST-only JSON routes at Plaid's paths, answering the
 * official `plaid` client pointed at it through `basePath`. Each Item keeps a
 * transaction log, and a /transactions/sync cursor is a position in that log
 * (plus the log's version, so a cursor handed out mid-pagination goes stale
 * when the log changes: TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION, while a
 * cursor handed out with has_more=false stays valid forever). Webhooks are
 * signed as Plaid signs them: ES256 JWTs over the body's SHA-256, with keys
 * served by /webhook_verification_key/get.
 */

export type UpdateStatus = "NOT_READY" | "INITIAL_UPDATE_COMPLETE" | "HISTORICAL_UPDATE_COMPLETE";

/** One change in an Item's log; `json` caches its serialised form (a logged row never changes). */
type LogEntry = (
  | { kind: "added" | "modified"; txn: PlaidTxn }
  | { kind: "removed"; removed: { transaction_id: string; account_id: string } }
) & { json?: string };

export interface FakeItem {
  itemId: string;
  accessToken: string;
  institutionId: string;
  institutionName: string;
  webhook: string | null;
  accounts: PlaidAccount[];
  log: LogEntry[];
  /** Transactions as they are now, by id. */
  live: Map<string, PlaidTxn>;
  /** Bumped by every change to the log. */
  version: number;
  status: UpdateStatus;
  /** Rows Plaid has not pulled from the bank yet (they join the log as the status advances). */
  backlog: PlaidTxn[];
  loginRequired: boolean;
  removed: boolean;
}

export interface ItemSpec {
  institutionId?: string;
  institutionName?: string;
  webhook?: string | null;
  /** How many generated transactions the history holds (default 20). */
  transactions?: number;
  /** Default HISTORICAL_UPDATE_COMPLETE; NOT_READY and INITIAL hold back (part of) the history. */
  status?: UpdateStatus;
  /** Adds an account in an unofficial currency (BTC). */
  unofficialCurrencyAccount?: boolean;
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

class PlaidFailure extends Error {
  /** Sent as Retry-After (an injected 429). */
  retryAfterSeconds: number | undefined;

  constructor(
    readonly status: number,
    readonly errorType: string,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

const cursorOf = (c: { item: string; pos: number; version: number; mid: boolean }) =>
  Buffer.from(JSON.stringify(c)).toString("base64url");

export class FakePlaid {
  readonly clientId: string;
  readonly secret: string;
  readonly faults = new Faults();
  /** Every request that passed the credentials check: its path, body (credentials left out) and arrival (ms). */
  readonly requests: { path: string; body: Record<string, unknown>; at: number }[] = [];
  /** Caps /transactions/sync pages below the client's `count`, so a little data spans several pages. */
  maxPageSize = 500;
  /** History of an Item whose spec names no size (Items made through /sandbox/public_token/create too). */
  defaultTransactions = 20;
  url = "";

  private readonly server: Server;
  private readonly random: () => number;
  private readonly items = new Map<string, FakeItem>();
  private readonly byToken = new Map<string, FakeItem>();
  private readonly publicTokens = new Map<string, { itemId: string; expiresAt: number; used: boolean }>();
  /** Link tokens handed out: the Item an update-mode token repairs (null: a new Item), and its webhook. */
  readonly linkTokens = new Map<string, { itemId: string | null; webhook: string | null; expiresAt: number }>();
  private readonly keys: SigningKey[] = [];
  private readonly expiredKeys = new Map<string, number>();
  /** Pending "mutations during pagination": each fires on the next mid-pagination sync call. */
  private mutations: ((item: FakeItem) => void)[] = [];
  private seed: number;

  constructor(options: { clientId?: string; secret?: string; seed?: number } = {}) {
    this.clientId = options.clientId ?? "fake-client-id";
    this.secret = options.secret ?? "fake-secret-do-not-log";
    this.random = seededRandom(options.seed ?? 42);
    // Histories take the seeds after it: the first one seeded like `random` would repeat the ids `add` makes.
    this.seed = (options.seed ?? 42) + 1;
    this.server = createServer((req, res) => void this.handle(req, res));
    this.rotateKey();
  }

  async start(port = 0): Promise<this> {
    this.url = `http://127.0.0.1:${await listen(this.server, port)}`;
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  // ---- test controls ------------------------------------------------------------------------

  /** An Item with accounts and a generated history; returns it (access token included). */
  createItem(spec: ItemSpec = {}): FakeItem {
    const accounts = defaultAccounts(this.random, spec.unofficialCurrencyAccount ?? false);
    const history = generateTransactions(accounts, spec.transactions ?? this.defaultTransactions, this.seed++);
    const item: FakeItem = {
      itemId: randomId(this.random, 37),
      accessToken: `access-sandbox-${randomUUID()}`,
      institutionId: spec.institutionId ?? "ins_109508",
      institutionName: spec.institutionName ?? "First Platypus Bank",
      webhook: spec.webhook ?? null,
      accounts,
      log: [],
      live: new Map(),
      version: 0,
      status: "NOT_READY",
      backlog: history,
      loginRequired: false,
      removed: false,
    };
    this.items.set(item.itemId, item);
    this.byToken.set(item.accessToken, item);
    this.setStatus(item, spec.status ?? "HISTORICAL_UPDATE_COMPLETE");
    return item;
  }

  /** A single-use public token (valid 30 minutes) for a new Item, as Link's onSuccess would hand over. */
  createPublicToken(spec: ItemSpec = {}): { publicToken: string; item: FakeItem } {
    const item = this.createItem(spec);
    const publicToken = `public-sandbox-${randomUUID()}`;
    this.publicTokens.set(publicToken, { itemId: item.itemId, expiresAt: Date.now() + 30 * 60_000, used: false });
    return { publicToken, item };
  }

  item(itemIdOrToken: string): FakeItem {
    const item = this.items.get(itemIdOrToken) ?? this.byToken.get(itemIdOrToken);
    if (!item) throw new Error(`no fake Item ${itemIdOrToken}`);
    return item;
  }

  /**
   * Advances the Item's update status: NOT_READY serves nothing; INITIAL
   * releases the last 30 days of history into the log; HISTORICAL the rest.
   */
  setStatus(item: FakeItem, status: UpdateStatus): void {
    item.status = status;
    if (status === "NOT_READY") return;
    const cutoff = daysAgo(30);
    const all = status === "HISTORICAL_UPDATE_COMPLETE";
    const held: PlaidTxn[] = [];
    for (const txn of item.backlog) {
      if (!all && txn.date < cutoff) held.push(txn);
      else {
        item.live.set(txn.transaction_id, txn);
        item.log.push({ kind: "added", txn });
      }
    }
    if (held.length !== item.backlog.length) item.version++;
    item.backlog = held;
  }

  /** Appends a new transaction to the log (fields not given are generated). */
  add(item: FakeItem, fields: Partial<PlaidTxn> = {}): PlaidTxn {
    const txn = transaction({
      transaction_id: randomId(this.random, 37),
      account_id: item.accounts[0].account_id,
      amount: 12.34,
      date: daysAgo(0),
      name: "FAKE MERCHANT",
      ...fields,
    });
    item.live.set(txn.transaction_id, txn);
    this.append(item, { kind: "added", txn });
    return txn;
  }

  /** Many generated transactions at once (e.g. 100,000 for a benchmark). */
  addGenerated(item: FakeItem, count: number, seed = this.seed++): void {
    for (const txn of generateTransactions(item.accounts, count, seed)) {
      item.live.set(txn.transaction_id, txn);
      item.log.push({ kind: "added", txn });
    }
    item.version++;
  }

  modify(item: FakeItem, transactionId: string, changes: Partial<PlaidTxn>): PlaidTxn {
    const current = item.live.get(transactionId);
    if (!current) throw new Error(`no transaction ${transactionId}`);
    const txn = { ...current, ...changes, transaction_id: transactionId };
    item.live.set(transactionId, txn);
    this.append(item, { kind: "modified", txn });
    return txn;
  }

  remove(item: FakeItem, transactionId: string): void {
    const current = item.live.get(transactionId);
    if (!current) throw new Error(`no transaction ${transactionId}`);
    item.live.delete(transactionId);
    this.append(item, { kind: "removed", removed: { transaction_id: transactionId, account_id: current.account_id } });
  }

  /**
   * A pending row posts the way Plaid reports it: the pending id in
   * `removed`, and a new posted row in `added` whose pending_transaction_id
   * names it. `between` rows are logged in between (to split the pair across pages).
   */
  post(item: FakeItem, pendingId: string, changes: Partial<PlaidTxn> = {}, between = 0): PlaidTxn {
    const pending = item.live.get(pendingId);
    if (!pending?.pending) throw new Error(`no pending transaction ${pendingId}`);
    this.remove(item, pendingId);
    for (let i = 0; i < between; i++) this.add(item, { account_id: pending.account_id, name: `FILLER ${i}` });
    return this.add(item, {
      ...pending,
      transaction_id: randomId(this.random, 37),
      pending: false,
      pending_transaction_id: pendingId,
      date: daysAgo(0),
      ...changes,
    });
  }

  /**
   * The next `times` sync calls made with a mid-pagination cursor find the
   * data changed since the previous page (a new transaction, or `change`),
   * and fail with TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION.
   */
  mutateDuringPagination(times = 1, change?: (item: FakeItem) => void): void {
    for (let i = 0; i < times; i++)
      this.mutations.push(change ?? ((item) => this.add(item, { name: "ARRIVED MID-PAGINATION" })));
  }

  /** Puts the Item into ITEM_LOGIN_REQUIRED and sends the ITEM ERROR webhook (as /sandbox/item/reset_login). */
  async resetLogin(item: FakeItem): Promise<void> {
    item.loginRequired = true;
    if (item.webhook) {
      await this.deliverWebhook(item, {
        webhook_type: "ITEM",
        webhook_code: "ERROR",
        error: {
          error_type: "ITEM_ERROR",
          error_code: "ITEM_LOGIN_REQUIRED",
          error_message: "the login details of this item have changed (credentials, MFA, or required user action)",
          display_message: null,
          status: 400,
        },
      });
    }
  }

  /** The person repaired the Item in Link's update mode. */
  async repairLogin(item: FakeItem): Promise<void> {
    item.loginRequired = false;
    if (item.webhook) await this.deliverWebhook(item, { webhook_type: "ITEM", webhook_code: "LOGIN_REPAIRED" });
  }

  // ---- webhooks -----------------------------------------------------------------------------

  /** A new signing key; the previous one is marked expired (as Plaid does on rotation). */
  rotateKey(): string {
    const previous = this.keys[this.keys.length - 1];
    if (previous) this.expiredKeys.set(previous.kid, Math.floor(Date.now() / 1000));
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const kid = randomUUID();
    const jwk = { ...publicKey.export({ format: "jwk" }), alg: "ES256", kid, use: "sig" };
    this.keys.push({ kid, privateKey, jwk: { ...jwk, created_at: Math.floor(Date.now() / 1000) } });
    return kid;
  }

  get currentKid(): string {
    return this.keys[this.keys.length - 1].kid;
  }

  /**
   * The `Plaid-Verification` value for `body`. Options forge the broken
   * cases: another algorithm, an old iat, a hash of another body, a key id
   * nobody knows, a signature by a key that is not Plaid's.
   */
  signWebhook(
    body: string | Buffer,
    forge: {
      alg?: string;
      iat?: number;
      bodyHash?: string;
      kid?: string;
      foreignKey?: boolean;
      keyIndex?: number;
    } = {},
  ): string {
    const key = this.keys[forge.keyIndex ?? this.keys.length - 1];
    const header = { alg: forge.alg ?? "ES256", kid: forge.kid ?? key.kid, typ: "JWT" };
    const claims = {
      iat: forge.iat ?? Math.floor(Date.now() / 1000),
      request_body_sha256: forge.bodyHash ?? createHash("sha256").update(body).digest("hex"),
    };
    const signingInput = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(claims))}`;
    const signer = forge.foreignKey ? generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey : key.privateKey;
    const signature = sign("sha256", Buffer.from(signingInput), { key: signer, dsaEncoding: "ieee-p1363" });
    return `${signingInput}.${forge.alg === "none" ? "" : signature.toString("base64url")}`;
  }

  /** A webhook body for the Item (the fields every Plaid webhook carries, plus `fields`). */
  webhookBody(item: FakeItem, fields: Record<string, unknown>): string {
    return JSON.stringify({ environment: "sandbox", item_id: item.itemId, ...fields });
  }

  /** POSTs a signed webhook to the Item's webhook URL; resolves the receiver's status code. */
  async deliverWebhook(item: FakeItem, fields: Record<string, unknown>): Promise<number> {
    if (!item.webhook) throw new Error("the Item has no webhook URL");
    const body = this.webhookBody(item, fields);
    const res = await fetch(item.webhook, {
      method: "POST",
      headers: { "content-type": "application/json", "Plaid-Verification": this.signWebhook(body) },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  // ---- the API ------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    const requestId = randomId(this.random, 15);
    try {
      const raw = (await readBody(req)).toString("utf8");
      if (req.method !== "POST") throw new PlaidFailure(405, "INVALID_REQUEST", "INVALID_HTTP_METHOD", "use POST");
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw || "{}") as Record<string, unknown>;
      } catch {
        throw new PlaidFailure(400, "INVALID_REQUEST", "INVALID_BODY", "body could not be parsed as JSON");
      }
      const clientId = req.headers["plaid-client-id"] ?? body.client_id;
      const secret = req.headers["plaid-secret"] ?? body.secret;
      if (clientId !== this.clientId || secret !== this.secret) {
        throw new PlaidFailure(400, "INVALID_INPUT", "INVALID_API_KEYS", "invalid client_id or secret provided");
      }
      const { client_id: _c, secret: _s, ...logged } = body;
      this.requests.push({ path, body: logged, at: Date.now() });
      const fault = this.faults.take(path);
      if (fault?.kind === "status") {
        const failure = this.statusFault(path, fault.status, fault.code);
        failure.retryAfterSeconds = fault.retryAfterSeconds;
        throw failure;
      }
      if (await applyTransportFault(fault, res)) return;
      const answer = this.route(path, body);
      if (answer instanceof RawJson) {
        // Built by hand from cached rows: serialising 100,000 transactions afresh on every run costs more than Coffer.
        const text = `${answer.text.slice(0, -1)},"request_id":"${requestId}"}`;
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      } else sendJson(res, 200, { ...answer, request_id: requestId });
    } catch (caught) {
      if (res.destroyed) return;
      const err =
        caught instanceof PlaidFailure
          ? caught
          : new PlaidFailure(500, "API_ERROR", "INTERNAL_SERVER_ERROR", "an unexpected error occurred");
      const headers: Record<string, string> =
        err.retryAfterSeconds === undefined ? {} : { "retry-after": String(err.retryAfterSeconds) };
      sendJson(
        res,
        err.status,
        {
          display_message: null,
          documentation_url: `https://plaid.com/docs/errors/`,
          error_code: err.errorCode,
          error_message: err.message,
          error_type: err.errorType,
          request_id: requestId,
          suggested_action: null,
        },
        headers,
      );
    }
  }

  private statusFault(path: string, status: number, code?: string): PlaidFailure {
    if (status === 429) {
      const limit = path === "/transactions/sync" ? "TRANSACTIONS_SYNC_LIMIT" : "RATE_LIMIT";
      return new PlaidFailure(429, "RATE_LIMIT_EXCEEDED", code ?? limit, "rate limit exceeded");
    }
    if (status >= 500) {
      return new PlaidFailure(status, "API_ERROR", code ?? "INTERNAL_SERVER_ERROR", "an unexpected error occurred");
    }
    return new PlaidFailure(status, "INVALID_REQUEST", code ?? "INVALID_FIELD", "injected failure");
  }

  private route(path: string, body: Record<string, unknown>): Record<string, unknown> | RawJson {
    switch (path) {
      case "/link/token/create":
        return this.linkTokenCreate(body);
      case "/sandbox/public_token/create": {
        const webhook = (body.options as { webhook?: string } | undefined)?.webhook ?? null;
        const institutionId = typeof body.institution_id === "string" ? body.institution_id : undefined;
        return { public_token: this.createPublicToken({ institutionId, webhook }).publicToken };
      }
      case "/item/public_token/exchange":
        return this.exchange(body);
      case "/accounts/get": {
        const item = this.dataItem(body);
        return { accounts: item.accounts, item: this.itemJson(item) };
      }
      case "/transactions/sync":
        return this.sync(body);
      case "/item/remove": {
        const item = this.liveItem(body);
        item.removed = true;
        return {};
      }
      case "/sandbox/item/reset_login": {
        const item = this.liveItem(body);
        void this.resetLogin(item);
        return { reset_login: true };
      }
      case "/sandbox/item/fire_webhook": {
        const item = this.liveItem(body);
        if (!item.webhook) throw new PlaidFailure(400, "INVALID_INPUT", "INVALID_FIELD", "the Item has no webhook");
        const code = typeof body.webhook_code === "string" ? body.webhook_code : "SYNC_UPDATES_AVAILABLE";
        void this.deliverWebhook(item, { webhook_type: body.webhook_type ?? "TRANSACTIONS", webhook_code: code });
        return { webhook_fired: true };
      }
      case "/webhook_verification_key/get":
        return this.verificationKey(body);
      default:
        throw new PlaidFailure(404, "INVALID_REQUEST", "NOT_FOUND", `unknown route ${path}`);
    }
  }

  private linkTokenCreate(body: Record<string, unknown>) {
    const user = body.user as { client_user_id?: unknown } | undefined;
    for (const [field, ok] of [
      ["client_name", typeof body.client_name === "string" && body.client_name.length <= 30],
      ["language", typeof body.language === "string"],
      ["country_codes", Array.isArray(body.country_codes) && body.country_codes.length > 0],
      ["user.client_user_id", typeof user?.client_user_id === "string" && user.client_user_id !== ""],
    ] as const) {
      if (!ok) throw new PlaidFailure(400, "INVALID_REQUEST", "INVALID_FIELD", `${field} is missing or invalid`);
    }
    const update = typeof body.access_token === "string";
    if (update) this.liveItem(body);
    else if (!Array.isArray(body.products) || body.products.length === 0) {
      throw new PlaidFailure(400, "INVALID_REQUEST", "INVALID_FIELD", "products must not be empty");
    }
    const ttl = update ? 30 * 60_000 : 4 * 3600_000;
    const linkToken = `link-sandbox-${randomUUID()}`;
    const itemId = update ? this.liveItem(body).itemId : null;
    const webhook = typeof body.webhook === "string" ? body.webhook : null;
    this.linkTokens.set(linkToken, { itemId, webhook, expiresAt: Date.now() + ttl });
    return { link_token: linkToken, expiration: new Date(Date.now() + ttl).toISOString() };
  }

  private exchange(body: Record<string, unknown>) {
    const token = typeof body.public_token === "string" ? body.public_token : "";
    const entry = this.publicTokens.get(token);
    if (!entry || entry.used || entry.expiresAt < Date.now()) {
      throw new PlaidFailure(
        400,
        "INVALID_INPUT",
        "INVALID_PUBLIC_TOKEN",
        "provided public token is expired or invalid",
      );
    }
    entry.used = true;
    const item = this.item(entry.itemId);
    return { access_token: item.accessToken, item_id: item.itemId };
  }

  private itemJson(item: FakeItem) {
    return {
      item_id: item.itemId,
      institution_id: item.institutionId,
      institution_name: item.institutionName,
      webhook: item.webhook,
      error: null,
      available_products: ["balance"],
      billed_products: ["transactions"],
      products: ["transactions"],
      consent_expiration_time: null,
      update_type: "background",
    };
  }

  /** The Item an access token names (removed Items answer as Plaid does for a revoked token). */
  private liveItem(body: Record<string, unknown>): FakeItem {
    const item = typeof body.access_token === "string" ? this.byToken.get(body.access_token) : undefined;
    if (!item) throw new PlaidFailure(400, "INVALID_INPUT", "INVALID_ACCESS_TOKEN", "provided access token is invalid");
    if (item.removed) throw new PlaidFailure(400, "ITEM_ERROR", "ITEM_NOT_FOUND", "the requested Item was not found");
    return item;
  }

  /** An Item for a data call: ITEM_LOGIN_REQUIRED while the login is broken. */
  private dataItem(body: Record<string, unknown>): FakeItem {
    const item = this.liveItem(body);
    if (item.loginRequired) {
      throw new PlaidFailure(
        400,
        "ITEM_ERROR",
        "ITEM_LOGIN_REQUIRED",
        "the login details of this item have changed (credentials, MFA, or required user action) and a user login " +
          "is required to update this information",
      );
    }
    return item;
  }

  private sync(body: Record<string, unknown>): Record<string, unknown> | RawJson {
    const item = this.dataItem(body);
    const count = body.count ?? 100;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 500) {
      throw new PlaidFailure(400, "INVALID_REQUEST", "INVALID_FIELD", "count must be an integer from 1 to 500");
    }
    let pos = 0;
    const cursor = typeof body.cursor === "string" ? body.cursor : "";
    if (cursor !== "") {
      let c: { item?: unknown; pos?: unknown; version?: unknown; mid?: unknown };
      try {
        c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as typeof c;
      } catch {
        c = {};
      }
      if (c.item !== item.itemId || typeof c.pos !== "number" || c.pos > item.log.length) {
        throw new PlaidFailure(400, "INVALID_REQUEST", "INVALID_FIELD", "cursor is invalid");
      }
      if (c.mid === true) {
        const mutation = this.mutations.shift();
        if (mutation) mutation(item);
        if (c.version !== item.version) {
          throw new PlaidFailure(
            400,
            "TRANSACTIONS_ERROR",
            "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION",
            "Underlying transaction data changed since last page was fetched. " +
              "Please restart pagination from last update.",
          );
        }
      }
      pos = c.pos;
    }
    const base = { accounts: item.accounts, transactions_update_status: item.status };
    if (item.status === "NOT_READY") {
      return { ...base, added: [], modified: [], removed: [], next_cursor: cursor, has_more: false };
    }
    const slice = item.log.slice(pos, pos + Math.min(count, this.maxPageSize));
    const end = pos + slice.length;
    const hasMore = end < item.log.length;
    const lists: Record<LogEntry["kind"], string[]> = { added: [], modified: [], removed: [] };
    for (const entry of slice) {
      entry.json ??= JSON.stringify(entry.kind === "removed" ? entry.removed : entry.txn);
      lists[entry.kind].push(entry.json);
    }
    const nextCursor = cursorOf({ item: item.itemId, pos: end, version: item.version, mid: hasMore });
    return new RawJson(
      `{"added":[${lists.added.join(",")}],"modified":[${lists.modified.join(",")}],` +
        `"removed":[${lists.removed.join(",")}],"accounts":${JSON.stringify(item.accounts)},` +
        `"next_cursor":"${nextCursor}","has_more":${hasMore},"transactions_update_status":"${item.status}"}`,
    );
  }

  private verificationKey(body: Record<string, unknown>) {
    const key = this.keys.find((k) => k.kid === body.key_id);
    if (!key)
      throw new PlaidFailure(400, "INVALID_INPUT", "INVALID_WEBHOOK_VERIFICATION_KEY_ID", "invalid key_id provided");
    return { key: { ...key.jwk, expired_at: this.expiredKeys.get(key.kid) ?? null } };
  }

  private append(item: FakeItem, entry: LogEntry): void {
    item.log.push(entry);
    item.version++;
  }
}

const b64 = (text: string) => Buffer.from(text).toString("base64url");

/** A JSON object answer already serialised. */
class RawJson {
  constructor(readonly text: string) {}
}
