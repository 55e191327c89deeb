import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { defineRoute, type RestRoute } from "../route.js";

export const systemRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/version",
    public: true,
    response: z.object({ version: z.string(), contract_version: z.string() }),
    async handler({ core, opts }) {
      const v = await core.system.getVersion({}, opts);
      return { version: v.version, contract_version: v.contractVersion };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/system/database",
    summary: "PostgreSQL's version and the schema migrations, applied and pending",
    response: z.object({
      server_version: z.string(),
      applied: z.array(z.object({ name: z.string(), executed_at: z.string().nullable() })),
      pending: z.array(z.string()),
      latest_known: z.string(),
    }),
    async handler({ core, opts }) {
      const s = await core.system.getDatabaseStatus({}, opts);
      return {
        server_version: s.serverVersion,
        applied: s.applied.map((m) => ({
          name: m.name,
          executed_at: m.executedAt ? timestampDate(m.executedAt).toISOString() : null,
        })),
        pending: s.pending,
        latest_known: s.latestKnown,
      };
    },
  }),
];
