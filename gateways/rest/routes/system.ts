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
];
