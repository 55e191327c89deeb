import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { Transport } from "@connectrpc/connect";
import { DEFAULTS } from "../../common/env.js";
import { CoreSessionManager, type RetireReason } from "./core-session.js";
import { CLIENT_IP_HEADER, SESSION_HEADER } from "../../common/session.js";
import { ApiKeyService, DeviceCodeService } from "../../gen/coffer/v1/auth_pb.js";
import { SystemService } from "../../gen/coffer/v1/system_pb.js";
import { UserService } from "../../gen/coffer/v1/users_pb.js";
import { LoginService, SessionService } from "../../gen/coffer/v1/logins_pb.js";
import { AccountService } from "../../gen/coffer/v1/accounts_pb.js";
import { CategoryService } from "../../gen/coffer/v1/categories_pb.js";
import { CounterpartyService } from "../../gen/coffer/v1/counterparties_pb.js";
import { ReportService } from "../../gen/coffer/v1/reports_pb.js";
import { SeriesService } from "../../gen/coffer/v1/series_pb.js";
import { RuleService } from "../../gen/coffer/v1/rules_pb.js";
import { TagService } from "../../gen/coffer/v1/tags_pb.js";
import { TransactionService } from "../../gen/coffer/v1/transactions_pb.js";
import { ConnectionService, ProviderService, SyncService, WebhookService } from "../../gen/coffer/v1/sync_pb.js";

/**
 * The gateways' only way into Coffer: Connect over HTTP/2 (h2c) to the core.
 * Every call carries a deadline (COFFER_CORE_TIMEOUT_MS unless the call sets
 * its own timeoutMs): a core that hangs costs a caller 504, never a hung socket.
 * The HTTP/2 session is sized and replaced as core-session.ts says; `onRetire`
 * hears of each replacement.
 */
export function coreTransport(
  baseUrl: string,
  defaultTimeoutMs: number = DEFAULTS.coreTimeoutMs,
  onRetire?: (reason: RetireReason) => void,
): Transport {
  // No gzip: gateways sit next to the core, where compressing a page of transactions costs more CPU than it saves.
  return createConnectTransport({
    baseUrl,
    httpVersion: "2",
    useBinaryFormat: true,
    acceptCompression: [],
    defaultTimeoutMs,
    sessionManager: new CoreSessionManager(baseUrl, onRetire),
  });
}

export function coreClients(transport: Transport) {
  return {
    system: createClient(SystemService, transport),
    apiKeys: createClient(ApiKeyService, transport),
    deviceCodes: createClient(DeviceCodeService, transport),
    users: createClient(UserService, transport),
    sessions: createClient(SessionService, transport),
    logins: createClient(LoginService, transport),
    accounts: createClient(AccountService, transport),
    transactions: createClient(TransactionService, transport),
    categories: createClient(CategoryService, transport),
    tags: createClient(TagService, transport),
    counterparties: createClient(CounterpartyService, transport),
    reports: createClient(ReportService, transport),
    series: createClient(SeriesService, transport),
    providers: createClient(ProviderService, transport),
    connections: createClient(ConnectionService, transport),
    sync: createClient(SyncService, transport),
    webhooks: createClient(WebhookService, transport),
    rules: createClient(RuleService, transport),
  };
}

export type CoreClients = ReturnType<typeof coreClients>;

/** Per-call options: the caller's key (or session) and the request id travel to the core as headers. */
export interface CallOptions {
  headers: Record<string, string>;
  signal?: AbortSignal;
  /** This call's deadline, when it needs another than the transport's default (a route's or tool's timeoutMs). */
  timeoutMs?: number;
}

export function callOptions(
  apiKey: string | undefined,
  requestId: string,
  timeoutMs?: number,
  browser?: { session?: string; clientIp?: string },
): CallOptions {
  const headers: Record<string, string> = { "x-request-id": requestId };
  if (apiKey) headers["x-api-key"] = apiKey;
  if (browser?.session) headers[SESSION_HEADER] = browser.session;
  if (browser?.clientIp) headers[CLIENT_IP_HEADER] = browser.clientIp;
  return timeoutMs === undefined ? { headers } : { headers, timeoutMs };
}
