import { COUNTERPARTY_TYPES } from "../../../common/enums.js";
import { z } from "zod";
import { CounterpartySchema } from "../../../gen/coffer/v1/counterparties_pb.js";
import { ref } from "../../shared/params.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

const counterpartyType = z.enum(COUNTERPARTY_TYPES);
const name = z.string().min(1).max(200);
const notes = z.string().max(2000).nullable();
/** Assigning and unassigning take the same body: up to 500 transaction short ids or UUIDs. */
const transactionIds = { transaction_ids: z.array(ref).min(1).max(500) };

export const counterpartyRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/counterparties",
    response: z.object({ counterparties: z.array(restShapeOf(CounterpartySchema)) }),
    query: { search: z.string().max(200).optional() },
    async handler({ core, opts, query }) {
      const r = await core.counterparties.listCounterparties({ search: query.search }, opts);
      return { counterparties: r.counterparties.map((c) => toRest(CounterpartySchema, c)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/counterparties",
    response: restShapeOf(CounterpartySchema),
    status: 201,
    body: { name, type: counterpartyType.optional(), notes: notes.optional() },
    async handler({ core, opts, body }) {
      const r = await core.counterparties.createCounterparty(
        { name: body.name, type: body.type, notes: body.notes ?? undefined },
        opts,
      );
      return toRest(CounterpartySchema, r.counterparty!);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/counterparties/:id",
    response: restShapeOf(CounterpartySchema),
    async handler({ core, opts, params }) {
      return toRest(
        CounterpartySchema,
        (await core.counterparties.getCounterparty({ id: params.id }, opts)).counterparty!,
      );
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/counterparties/:id",
    response: restShapeOf(CounterpartySchema),
    body: { name: name.optional(), type: counterpartyType.optional(), notes: notes.optional() },
    async handler({ core, opts, params, body }) {
      // JSON null clears the notes; the core takes "" for that.
      const notes = body.notes === null ? "" : body.notes;
      const r = await core.counterparties.updateCounterparty(
        { id: params.id, name: body.name, type: body.type, notes },
        opts,
      );
      return toRest(CounterpartySchema, r.counterparty!);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/counterparties/:id/transactions",
    response: z.object({ updated: z.number().int() }),
    body: transactionIds,
    async handler({ core, opts, params, body }) {
      const r = await core.counterparties.assignCounterparty(
        { id: params.id, transactionIds: body.transaction_ids },
        opts,
      );
      return { updated: Number(r.updated) };
    },
  }),
  defineRoute({
    // Unassigning takes the same body as assigning, on DELETE of the same sub-resource.
    method: "DELETE",
    url: "/api/v1/counterparties/:id/transactions",
    response: z.object({ updated: z.number().int() }),
    body: transactionIds,
    async handler({ core, opts, params, body }) {
      const r = await core.counterparties.unassignCounterparty(
        { id: params.id, transactionIds: body.transaction_ids },
        opts,
      );
      return { updated: Number(r.updated) };
    },
  }),
];
