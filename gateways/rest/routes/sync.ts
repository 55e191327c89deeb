import type { JsonObject } from "@bufbuild/protobuf";
import { z } from "zod";
import {
  PreviewCsvImportResponseSchema,
  ProviderSchema,
  SyncLogSchema,
  WebhookEventSchema,
  type Connection,
  type LinkSession,
} from "../../../gen/coffer/v1/sync_pb.js";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  connectionJson,
  connectionShape,
  listedConnection,
  listedShape,
  pendingSyncJson,
  pendingSyncShape,
} from "../../shared/connection-json.js";
import { ref } from "../../shared/params.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRawRoute, defineRoute, NO_CONTENT, type RestRoute } from "../route.js";

const linkSessionShape = z.object({ link_token: z.string(), expiration: z.iso.datetime() });
const pageOf = (key: string, item: z.ZodType) =>
  z.object({ [key]: z.array(item), next_cursor: z.string(), has_more: z.boolean() });

/** A single connection (GET /connections/{id} and every write): the listing's fields and `paused`. */
const connection = (c: Connection | undefined) => connectionJson(c!);

const linkSession = (s: LinkSession) => ({
  link_token: s.linkToken,
  expiration: timestampDate(s.expiration!).toISOString(),
});

/** CSV bodies carry a file of up to 20 MB, as text or base64 (a third larger), inside JSON. */
const CSV_BODY_LIMIT = 32 * 1024 * 1024;

/** A provider's credentials: their fields are the provider's (its credentials_schema), so any are passed on. */
const credentials = z.record(z.string(), z.unknown());

const page = {
  limit: z.number().int().min(1).max(500).optional(),
  cursor: z.string().max(8192).optional(),
};

/** Headers never passed on with a webhook (they are not the provider's, and may be secrets). */
const KEPT_BACK = new Set(["authorization", "cookie", "x-api-key", "proxy-authorization"]);

export const syncRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/providers",
    response: z.object({ providers: z.array(restShapeOf(ProviderSchema)) }),
    async handler({ core, opts }) {
      const r = await core.providers.listProviders({}, opts);
      return { providers: r.providers.map((p) => toRest(ProviderSchema, p)) };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/providers/:name",
    response: restShapeOf(ProviderSchema),
    async handler({ core, opts, params }) {
      return toRest(ProviderSchema, (await core.providers.getProvider({ name: params.name }, opts)).provider!);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/providers/:name/link-session",
    // 204 for a provider that needs no link session (it takes credentials straight away).
    response: linkSessionShape,
    orNoContent: true,
    body: { user_id: ref },
    async handler({ core, opts, params, body }) {
      const r = await core.providers.createLinkSession({ provider: params.name, userId: body.user_id }, opts);
      return r.linkSession ? linkSession(r.linkSession) : NO_CONTENT;
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/connections",
    response: z.array(listedShape),
    async handler({ core, opts }) {
      // A bare array, not an envelope: the interface specification says so for this list.
      return (await core.connections.listConnections({}, opts)).connections.map(listedConnection);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/connections",
    response: connectionShape,
    status: 201,
    bodyLimit: CSV_BODY_LIMIT,
    body: { provider: z.string().min(1).max(64), user_id: ref, credentials },
    async handler({ core, opts, body }) {
      const r = await core.connections.createConnection(
        { provider: body.provider, userId: body.user_id, credentials: body.credentials as JsonObject },
        opts,
      );
      return connection(r.connection);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/connections/csv/preview",
    response: restShapeOf(PreviewCsvImportResponseSchema),
    bodyLimit: CSV_BODY_LIMIT,
    body: {
      csv: z.string(),
      column_mapping: z.record(z.string(), z.unknown()).nullable().optional(),
      date_format: z.string().nullable().optional(),
      decimal_separator: z.string().nullable().optional(),
      positive_is_debit: z.boolean().nullable().optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.connections.previewCsvImport(
        {
          csv: body.csv,
          columnMapping: (body.column_mapping ?? undefined) as JsonObject | undefined,
          dateFormat: body.date_format ?? undefined,
          decimalSeparator: body.decimal_separator ?? undefined,
          positiveIsDebit: body.positive_is_debit ?? undefined,
        },
        opts,
      );
      return toRest(PreviewCsvImportResponseSchema, r);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/connections/:id",
    response: connectionShape,
    async handler({ core, opts, params }) {
      return connection((await core.connections.getConnection({ id: params.id }, opts)).connection);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/connections/:id/sync",
    response: z.object({
      status: z.literal("queued"),
      already_pending: z.boolean(),
      sync: pendingSyncShape,
      connection: connectionShape,
    }),
    status: 202,
    bodyOptional: true,
    body: {},
    async handler({ core, opts, params }) {
      const r = await core.connections.syncConnection({ id: params.id }, opts);
      return {
        status: "queued" as const,
        already_pending: !r.queued,
        sync: pendingSyncJson(r),
        connection: connection(r.connection),
      };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/connections/:id/reauth",
    // link_token and expiration: the session for the provider's widget (update mode), null when none is needed.
    response: z.object({
      connection: connectionShape,
      link_token: z.string().nullable(),
      expiration: z.iso.datetime().nullable(),
    }),
    bodyOptional: true,
    body: { credentials: credentials.optional() },
    async handler({ core, opts, params, body }) {
      const r = await core.connections.reauthConnection(
        { id: params.id, credentials: body.credentials as JsonObject | undefined },
        opts,
      );
      const session = r.linkSession ? linkSession(r.linkSession) : { link_token: null, expiration: null };
      return { connection: connection(r.connection), ...session };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/connections/:id/paused",
    response: connectionShape,
    body: { paused: z.boolean() },
    async handler({ core, opts, params, body }) {
      const r = await core.connections.setConnectionPaused({ id: params.id, paused: body.paused }, opts);
      return connection(r.connection);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/connections/:id",
    response: connectionShape,
    async handler({ core, opts, params }) {
      return connection((await core.connections.deleteConnection({ id: params.id }, opts)).connection);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/sync/logs",
    response: pageOf("sync_logs", restShapeOf(SyncLogSchema)),
    query: { connection_id: ref.optional(), ...page },
    async handler({ core, opts, query }) {
      const r = await core.sync.listSyncLogs(
        { connectionId: query.connection_id, limit: query.limit ?? 0, cursor: query.cursor ?? "" },
        opts,
      );
      return {
        sync_logs: r.syncLogs.map((l) => toRest(SyncLogSchema, l)),
        next_cursor: r.nextCursor,
        has_more: r.hasMore,
      };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/webhook-events",
    response: pageOf("webhook_events", restShapeOf(WebhookEventSchema)),
    query: {
      provider: z.string().min(1).max(64).optional(),
      status: z.enum(["accepted", "duplicate", "rejected", "ignored"]).optional(),
      ...page,
    },
    async handler({ core, opts, query }) {
      const r = await core.webhooks.listWebhookEvents(
        { provider: query.provider, status: query.status, limit: query.limit ?? 0, cursor: query.cursor ?? "" },
        opts,
      );
      return {
        webhook_events: r.webhookEvents.map((e) => toRest(WebhookEventSchema, e)),
        next_cursor: r.nextCursor,
        has_more: r.hasMore,
      };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/webhook-events/:id/replay",
    response: restShapeOf(WebhookEventSchema),
    bodyOptional: true,
    body: {},
    async handler({ core, opts, params }) {
      const r = await core.webhooks.replayWebhookEvent({ id: params.id }, opts);
      return toRest(WebhookEventSchema, r.webhookEvent!);
    },
  }),
  defineRawRoute({
    method: "POST",
    url: "/webhooks/:provider",
    public: true,
    summary: "A provider's webhook, checked against its signature",
    response: z.object({ id: z.string().nullable(), status: z.string() }),
    async handler({ core, req, opts, params, body }) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || KEPT_BACK.has(name)) continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const r = await core.webhooks.receiveWebhook({ provider: params.provider, headers, body }, opts);
      return { id: r.id ?? null, status: r.status };
    },
  }),
];
