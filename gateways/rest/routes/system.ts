import { defineRoute, type RestRoute } from "../route.js";

export const systemRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/version",
    async handler({ core, opts }) {
      const v = await core.system.getVersion({}, opts);
      return { version: v.version, contract_version: v.contractVersion };
    },
  }),
];
