import { AccountSchema } from "../../../gen/coffer/v1/accounts_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { body, nullableStr, str, type RestRoute } from "../route.js";

const ACCOUNT_TYPES = ["depository", "credit", "loan", "investment", "other"];

/** JSON carries money as numbers; the core takes exact decimal text. A number's shortest form is its decimal text. */
const decimalText = (v: number | string | null | undefined): string | undefined =>
  v === null || v === undefined ? undefined : typeof v === "number" ? String(v) : v;

export const accountRoutes: RestRoute[] = [
  {
    method: "GET",
    url: "/api/v1/accounts",
    schema: {
      querystring: {
        type: "object",
        properties: { user_id: str({ minLength: 1 }), include_hidden: { type: "boolean" } },
        additionalProperties: false,
      },
    },
    async handler({ core, opts, query }) {
      const r = await core.accounts.listAccounts(
        { userId: query.user_id, includeHidden: query.include_hidden ?? false },
        opts,
      );
      return { accounts: r.accounts.map((a) => toRest(AccountSchema, a)) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/accounts",
    status: 201,
    schema: {
      body: body(
        {
          user_id: str({ minLength: 1 }),
          name: str({ minLength: 1, maxLength: 200 }),
          type: str({ enum: ACCOUNT_TYPES }),
          subtype: nullableStr({ maxLength: 64 }),
          iso_currency_code: str({ minLength: 3, maxLength: 3 }),
          mask: nullableStr({ maxLength: 8 }),
          official_name: nullableStr({ maxLength: 200 }),
          balance_current: { anyOf: [{ type: "number" }, { type: "string" }, { type: "null" }] },
        },
        ["user_id", "name", "type", "iso_currency_code"],
      ),
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
  },
  {
    method: "GET",
    url: "/api/v1/accounts/:id",
    async handler({ core, opts, params }) {
      return toRest(AccountSchema, (await core.accounts.getAccount({ id: params.id }, opts)).account!);
    },
  },
  {
    method: "PATCH",
    url: "/api/v1/accounts/:id",
    schema: {
      body: body({
        name: str({ minLength: 1, maxLength: 200 }),
        hidden: { type: "boolean" },
        user_id: str({ minLength: 1 }),
      }),
    },
    async handler({ core, opts, params, body }) {
      const r = await core.accounts.updateAccount(
        { id: params.id, name: body.name, hidden: body.hidden, userId: body.user_id },
        opts,
      );
      return toRest(AccountSchema, r.account!);
    },
  },
];
