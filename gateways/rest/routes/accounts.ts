import { ACCOUNT_TYPES } from "../../../common/enums.js";
import { z } from "zod";
import { AccountSchema } from "../../../gen/coffer/v1/accounts_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

const accountType = z.enum(ACCOUNT_TYPES);

/** JSON carries money as numbers; the core takes exact decimal text. A number's shortest form is its decimal text. */
const decimalText = (v: number | string | null | undefined): string | undefined =>
  v === null || v === undefined ? undefined : typeof v === "number" ? String(v) : v;

export const accountRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/accounts",
    response: z.object({ accounts: z.array(restShapeOf(AccountSchema)) }),
    query: { user_id: z.string().min(1).optional(), include_hidden: z.boolean().optional() },
    async handler({ core, opts, query }) {
      const r = await core.accounts.listAccounts(
        { userId: query.user_id, includeHidden: query.include_hidden ?? false },
        opts,
      );
      return { accounts: r.accounts.map((a) => toRest(AccountSchema, a)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/accounts",
    response: restShapeOf(AccountSchema),
    status: 201,
    body: {
      user_id: z.string().min(1),
      name: z.string().min(1).max(200),
      type: accountType,
      subtype: z.string().max(64).nullable().optional(),
      iso_currency_code: z.string().length(3),
      mask: z.string().max(8).nullable().optional(),
      official_name: z.string().max(200).nullable().optional(),
      // The core judges the decimal (at most 2 places); null or left out means no balance.
      balance_current: z
        .union([z.number().describe("a JSON number"), z.string().describe('decimal text, e.g. "12.30"'), z.null()])
        .optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.accounts.createAccount(
        {
          userId: body.user_id,
          name: body.name,
          type: body.type,
          subtype: body.subtype ?? undefined,
          isoCurrencyCode: body.iso_currency_code,
          mask: body.mask ?? undefined,
          officialName: body.official_name ?? undefined,
          balanceCurrent: decimalText(body.balance_current),
        },
        opts,
      );
      return toRest(AccountSchema, r.account!);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/accounts/:id",
    response: restShapeOf(AccountSchema),
    async handler({ core, opts, params }) {
      return toRest(AccountSchema, (await core.accounts.getAccount({ id: params.id }, opts)).account!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/accounts/:id",
    response: restShapeOf(AccountSchema),
    body: {
      name: z.string().min(1).max(200).optional(),
      hidden: z.boolean().optional(),
      user_id: z.string().min(1).optional(),
    },
    async handler({ core, opts, params, body }) {
      const r = await core.accounts.updateAccount(
        { id: params.id, name: body.name, hidden: body.hidden, userId: body.user_id },
        opts,
      );
      return toRest(AccountSchema, r.account!);
    },
  }),
];
