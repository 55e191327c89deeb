import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { close, listen } from "../../fakes/http.js";
import type { FakePlaid } from "../../fakes/plaid/server.js";
import { SANDBOX_INSTITUTION, type FakeTeller } from "../../fakes/teller/server.js";

const read = (name: string) => readFileSync(new URL(`../fakes/${name}`, import.meta.url), "utf8");
const DIALOG = read("widget-dialog.js");
const PLAID_LINK = DIALOG + read("plaid-link.js");
const TELLER_CONNECT = DIALOG + read("teller-connect.js");

/**
 * Serves the fake Plaid Link and Teller Connect scripts (PLAID_LINK_SCRIPT_URL, TELLER_CONNECT_SCRIPT_URL)
 * and the JSONP routes they call when the person finishes: these talk to the fake provider servers in
 * this process, so the tokens the widgets hand to the console are ones the fakes accept.
 */
export class WidgetServer {
  url = "";
  /** What the widgets completed: what they were given, and the fake Item or enrollment they handed over. */
  readonly completed: { widget: "plaid" | "teller"; params: Record<string, string>; id?: string }[] = [];
  private readonly server: Server;

  constructor(
    private readonly plaid: FakePlaid | null,
    private readonly teller: FakeTeller | null,
    private readonly tellerApplicationId: string,
  ) {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      const send = (status: number, body: string) => {
        res.writeHead(status, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" });
        res.end(body);
      };
      if (url.pathname === "/link-initialize.js") return send(200, PLAID_LINK);
      if (url.pathname === "/connect.js") return send(200, TELLER_CONNECT);
      if (url.pathname === "/blank.html") {
        // A page on another origin, for tests of what the console's server accepts from elsewhere.
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return res.end("<!doctype html><title>elsewhere</title><p>another site</p>");
      }
      const callback = url.searchParams.get("callback") ?? "";
      if (!/^__fakeWidgetCallback\d+$/.test(callback)) return send(400, "");
      const params = Object.fromEntries(url.searchParams);
      delete params.callback;
      void this.complete(url.pathname, params).then(
        (answer) => send(200, `window[${JSON.stringify(callback)}](${JSON.stringify(answer)});`),
        (e: unknown) => send(500, `console.error(${JSON.stringify(String(e))});`),
      );
    });
  }

  async start(): Promise<this> {
    this.url = `http://127.0.0.1:${await listen(this.server)}`;
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  get plaidScriptUrl(): string {
    return `${this.url}/link-initialize.js`;
  }

  get tellerScriptUrl(): string {
    return `${this.url}/connect.js`;
  }

  private async complete(path: string, params: Record<string, string>): Promise<unknown> {
    if (path === "/plaid/complete.js" && this.plaid) {
      const done = { widget: "plaid" as const, params, id: undefined as string | undefined };
      this.completed.push(done);
      return this.plaidComplete(params.link_token ?? "", (id) => (done.id = id));
    }
    if (path === "/teller/complete.js" && this.teller) {
      const done = { widget: "teller" as const, params, id: undefined as string | undefined };
      this.completed.push(done);
      return this.tellerComplete(this.teller, params, (id) => (done.id = id));
    }
    throw new Error(`no fake widget route ${path}`);
  }

  /** Link's hand-over: a new Item's public token, or (update mode) the Item's login repaired. */
  private async plaidComplete(linkToken: string, handedOver: (itemId: string) => void): Promise<unknown> {
    const plaid = this.plaid!;
    const link = plaid.linkTokens.get(linkToken);
    if (!link || link.expiresAt < Date.now()) {
      return {
        error: {
          error_type: "INVALID_INPUT",
          error_code: "INVALID_LINK_TOKEN",
          error_message: "link token is invalid or expired",
          display_message: null,
        },
      };
    }
    let publicToken: string;
    let itemId: string;
    if (link.itemId) {
      const item = plaid.item(link.itemId);
      await plaid.repairLogin(item);
      // Update mode hands over a public token too; Coffer has nothing to exchange (same access token).
      publicToken = `public-sandbox-update-${randomUUID()}`;
      itemId = item.itemId;
    } else {
      const made = plaid.createPublicToken({ webhook: link.webhook });
      publicToken = made.publicToken;
      itemId = made.item.itemId;
    }
    const item = plaid.item(itemId);
    handedOver(itemId);
    return {
      public_token: publicToken,
      metadata: {
        institution: { name: item.institutionName, institution_id: item.institutionId },
        accounts: item.accounts.map((a) => ({
          id: a.account_id,
          name: a.name as string,
          mask: a.mask as string | null,
          type: a.type as string,
          subtype: a.subtype as string | null,
        })),
        link_session_id: `link-session-${randomUUID()}`,
        transfer_status: null,
      },
    };
  }

  /** Connect's onSuccess: a new enrollment, or the named one repaired (same access token). */
  private tellerComplete(
    teller: FakeTeller,
    params: Record<string, string>,
    handedOver: (id: string) => void,
  ): unknown {
    if (params.application_id !== this.tellerApplicationId) {
      return { failure: { type: "payer", code: "invalid_application", message: "Unknown application id." } };
    }
    const enrollment = params.enrollment_id ? teller.enrollment(params.enrollment_id) : teller.createEnrollment();
    if (params.enrollment_id) teller.repair(enrollment);
    handedOver(enrollment.id);
    return {
      enrollment: {
        accessToken: enrollment.token,
        user: { id: `usr_${enrollment.id.slice(4)}` },
        enrollment: { id: enrollment.id, institution: { name: SANDBOX_INSTITUTION.name } },
        signatures: [],
      },
    };
  }
}
