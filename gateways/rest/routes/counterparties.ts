import { CounterpartySchema } from "../../../gen/coffer/v1/counterparties_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { body, nullableStr, str, type RestRoute } from "../route.js";

const TYPES = ["merchant", "person", "organization", "other"];
const transactionIds = body(
  { transaction_ids: { type: "array", minItems: 1, maxItems: 500, items: str({ minLength: 1, maxLength: 64 }) } },
  ["transaction_ids"],
);

export const counterpartyRoutes: RestRoute[] = [
  {
    method: "GET",
    url: "/api/v1/counterparties",
    schema: {
      querystring: { type: "object", properties: { search: str({ maxLength: 200 }) }, additionalProperties: false },
    },
    async handler({ core, opts, query }) {
      const r = await core.counterparties.listCounterparties({ search: query.search }, opts);
      return { counterparties: r.counterparties.map((c) => toRest(CounterpartySchema, c)) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/counterparties",
    status: 201,
    schema: {
      body: body(
        {
          name: str({ minLength: 1, maxLength: 200 }),
          type: str({ enum: TYPES }),
          notes: nullableStr({ maxLength: 2000 }),
        },
        ["name"],
      ),
    },
    async handler({ core, opts, body }) {
      const r = await core.counterparties.createCounterparty(
        { name: body.name, type: body.type, notes: body.notes ?? undefined },
        opts,
      );
      return toRest(CounterpartySchema, r.counterparty!);
    },
  },
  {
    method: "GET",
    url: "/api/v1/counterparties/:id",
    async handler({ core, opts, params }) {
      return toRest(
        CounterpartySchema,
        (await core.counterparties.getCounterparty({ id: params.id }, opts)).counterparty!,
      );
    },
  },
  {
    method: "PATCH",
    url: "/api/v1/counterparties/:id",
    schema: {
      body: body({
        name: str({ minLength: 1, maxLength: 200 }),
        type: str({ enum: TYPES }),
        notes: nullableStr({ maxLength: 2000 }),
      }),
    },
    async handler({ core, opts, params, body }) {
      // JSON null clears the notes; the core takes "" for that.
      const notes = body.notes === null ? "" : body.notes;
      const r = await core.counterparties.updateCounterparty(
        { id: params.id, name: body.name, type: body.type, notes },
        opts,
      );
      return toRest(CounterpartySchema, r.counterparty!);
    },
  },
  {
    method: "POST",
    url: "/api/v1/counterparties/:id/transactions",
    schema: { body: transactionIds },
    async handler({ core, opts, params, body }) {
      const r = await core.counterparties.assignCounterparty(
        { id: params.id, transactionIds: body.transaction_ids },
        opts,
      );
      return { updated: Number(r.updated) };
    },
  },
  {
    // Unassigning takes the same body as assigning, on DELETE of the same sub-resource.
    method: "DELETE",
    url: "/api/v1/counterparties/:id/transactions",
    schema: { body: transactionIds },
    async handler({ core, opts, params, body }) {
      const r = await core.counterparties.unassignCounterparty(
        { id: params.id, transactionIds: body.transaction_ids },
        opts,
      );
      return { updated: Number(r.updated) };
    },
  },
];
