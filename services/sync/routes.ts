import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import {
  ConnectionService,
  ProviderService,
  SyncService,
  WebhookService,
  type ConnectionSchema,
  type LinkSessionSchema,
  type ProviderSchema,
  type SyncLogSchema,
  type WebhookEventSchema,
} from "../../gen/coffer/v1/sync_pb.js";
import { emOf, kLog, requirePrincipal } from "../context.js";
import { actorOf } from "../ledger/actor.js";
import { tsFromIso, orUndef, ts } from "../shared/proto.js";
import {
  createConnection,
  createLinkSession,
  disconnectConnection,
  listConnections,
  providerFailure,
  reauthConnection,
  requestManualSync,
  resolveConnection,
  setConnectionPaused,
  type ConnectionView,
} from "./connections.js";
import { previewCsv } from "./providers/csv/preview.js";
import type { LinkSession, Provider } from "./providers/provider.js";
import type { CursorKeyring } from "../pagination/cursor-keys.js";
import type { SyncRuntime } from "./runtime.js";
import { listSyncLogs, type SyncLogView } from "./sync-logs.js";
import { listWebhookEvents, receiveWebhook, replayWebhookEvent, type WebhookEventView } from "./webhooks.js";

const providerToProto = (p: Provider): MessageInitShape<typeof ProviderSchema> => {
  const info = p.info();
  return {
    name: info.name,
    configured: info.configured,
    needsLinkSession: info.needsLinkSession,
    capabilities: info.capabilities,
    credentialsSchema: info.credentialsSchema,
  };
};

export const connectionToProto = (c: ConnectionView): MessageInitShape<typeof ConnectionSchema> => ({
  id: c.id,
  shortId: c.shortId,
  institutionName: c.institutionName ?? "",
  institutionId: c.institutionId ?? "",
  provider: c.provider,
  status: c.status,
  lastSyncedAt: c.lastSyncedAt ? tsFromIso(c.lastSyncedAt) : undefined,
  errorCode: orUndef(c.errorCode),
  errorMessage: orUndef(c.errorMessage),
  userId: c.userId,
  userName: c.userName,
  createdAt: tsFromIso(c.createdAt),
  updatedAt: tsFromIso(c.updatedAt),
  paused: c.paused,
  warnings: c.warnings,
  warningRows: c.warningRows.map(skippedToProto),
  warningsSyncLogId: orUndef(c.warningsSyncLogId),
});

const skippedToProto = (s: { row: string; reason: string; amount?: string }) => ({
  row: s.row,
  reason: s.reason,
  amount: s.amount,
});

const linkToProto = (s: LinkSession | null): MessageInitShape<typeof LinkSessionSchema> | undefined =>
  s ? { linkToken: s.linkToken, expiration: ts(s.expiration) } : undefined;

const syncLogToProto = (l: SyncLogView): MessageInitShape<typeof SyncLogSchema> => ({
  id: l.id,
  shortId: l.shortId,
  connectionId: l.connectionId,
  provider: l.provider,
  trigger: l.trigger,
  status: l.status,
  startedAt: tsFromIso(l.startedAt),
  finishedAt: l.finishedAt ? tsFromIso(l.finishedAt) : undefined,
  durationMs: l.durationMs === null ? undefined : BigInt(l.durationMs),
  pages: l.pages,
  added: l.added,
  modified: l.modified,
  removed: l.removed,
  unchanged: l.unchanged,
  skippedCount: l.skippedCount,
  skipped: l.skipped.map(skippedToProto),
  errorCode: orUndef(l.errorCode),
  errorMessage: orUndef(l.errorMessage),
});

const webhookEventToProto = (w: WebhookEventView): MessageInitShape<typeof WebhookEventSchema> => ({
  id: w.id,
  shortId: w.shortId,
  provider: w.provider,
  eventId: orUndef(w.eventId),
  eventType: orUndef(w.eventType),
  status: w.status,
  reason: orUndef(w.reason),
  action: orUndef(w.action),
  connectionIds: w.connectionIds,
  receivedAt: tsFromIso(w.receivedAt),
  replayedAt: w.replayedAt ? tsFromIso(w.replayedAt) : undefined,
  replayCount: w.replayCount,
  payload: (w.payload ?? undefined) as JsonObject | undefined,
});

const logOf = (ctx: HandlerContext) => ctx.values.get(kLog) ?? { warn: () => undefined };

export function syncRoutes(router: ConnectRouter, sync: SyncRuntime, cursorKeys: CursorKeyring) {
  router.service(ProviderService, {
    async listProviders() {
      return { providers: sync.registry.all().map(providerToProto) };
    },
    async getProvider(req) {
      return { provider: providerToProto(sync.registry.get(req.name)) };
    },
    async createLinkSession(req, ctx) {
      return { linkSession: linkToProto(await createLinkSession(emOf(ctx), sync, req)) };
    },
  });

  router.service(ConnectionService, {
    async listConnections(_req, ctx) {
      return { connections: (await listConnections(emOf(ctx))).map(connectionToProto) };
    },
    async getConnection(req, ctx) {
      return { connection: connectionToProto(await resolveConnection(emOf(ctx), req.id)) };
    },
    async createConnection(req, ctx) {
      const actor = actorOf(requirePrincipal(ctx));
      const c = await createConnection(emOf(ctx), sync, actor, {
        provider: req.provider,
        userId: req.userId,
        credentials: req.credentials,
      });
      return { connection: connectionToProto(c) };
    },
    async syncConnection(req, ctx) {
      const r = await requestManualSync(emOf(ctx), sync, req.id);
      return {
        connection: connectionToProto(r.connection),
        queued: r.queued,
        sync: r.sync
          ? {
              state: r.sync.state,
              requestedAt: tsFromIso(r.sync.requestedAt),
              nextAttemptAt: tsFromIso(r.sync.nextAttemptAt),
              retries: r.sync.retries,
            }
          : undefined,
      };
    },
    async reauthConnection(req, ctx) {
      const actor = actorOf(requirePrincipal(ctx));
      const r = await reauthConnection(emOf(ctx), sync, actor, { id: req.id, credentials: req.credentials });
      return { connection: connectionToProto(r.connection), linkSession: linkToProto(r.linkSession) };
    },
    async setConnectionPaused(req, ctx) {
      const actor = actorOf(requirePrincipal(ctx));
      return { connection: connectionToProto(await setConnectionPaused(emOf(ctx), actor, req.id, req.paused)) };
    },
    async deleteConnection(req, ctx) {
      const actor = actorOf(requirePrincipal(ctx));
      return { connection: connectionToProto(await disconnectConnection(emOf(ctx), sync, actor, req.id, logOf(ctx))) };
    },
    async previewCsvImport(req) {
      let p;
      try {
        p = previewCsv({
          csv: req.csv,
          columnMapping: req.columnMapping,
          dateFormat: req.dateFormat,
          decimalSeparator: req.decimalSeparator,
          positiveIsDebit: req.positiveIsDebit,
        });
      } catch (e) {
        return providerFailure("csv", e);
      }
      return {
        delimiter: p.delimiter,
        headers: p.headers,
        inferredMapping: { ...p.inferredMapping },
        dateFormat: p.dateFormat,
        decimalSeparator: p.decimalSeparator,
        ambiguities: p.ambiguities,
        sampleRows: p.sampleRows.map((r) => ({
          line: r.line,
          date: r.date,
          amount: r.amount,
          description: r.description,
          merchant: orUndef(r.merchant),
          category: orUndef(r.category),
        })),
        errors: p.errors,
        rowCount: p.rowCount,
        errorCount: p.errorCount,
      };
    },
  });

  router.service(SyncService, {
    async listSyncLogs(req, ctx) {
      const em = emOf(ctx);
      const r = await listSyncLogs(
        em,
        { connectionId: req.connectionId, limit: req.limit, cursor: req.cursor },
        cursorKeys,
      );
      return { syncLogs: r.syncLogs.map(syncLogToProto), nextCursor: r.nextCursor, hasMore: r.hasMore };
    },
  });

  router.service(WebhookService, {
    async receiveWebhook(req, ctx) {
      const r = await receiveWebhook(emOf(ctx), sync, {
        provider: req.provider,
        headers: req.headers,
        body: Buffer.from(req.body),
      });
      return { id: orUndef(r.id), status: r.status };
    },
    async listWebhookEvents(req, ctx) {
      const r = await listWebhookEvents(
        emOf(ctx),
        {
          provider: req.provider,
          status: req.status,
          limit: req.limit,
          cursor: req.cursor,
        },
        cursorKeys,
      );
      return { webhookEvents: r.events.map(webhookEventToProto), nextCursor: r.nextCursor, hasMore: r.hasMore };
    },
    async replayWebhookEvent(req, ctx) {
      return { webhookEvent: webhookEventToProto(await replayWebhookEvent(emOf(ctx), sync, req.id)) };
    },
  });
}
