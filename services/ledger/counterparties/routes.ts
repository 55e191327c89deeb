import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { CounterpartyService, type CounterpartySchema } from "../../../gen/coffer/v1/counterparties_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import type { Counterparty } from "../../db/entities/index.js";
import { orUndef, ts } from "../../shared/proto.js";
import { actorOf } from "../actor.js";
import {
  assignCounterparty,
  createCounterparty,
  listCounterparties,
  loadCounterparty,
  resolveCounterparty,
  unassignCounterparty,
  updateCounterparty,
} from "./counterparties.js";

const counterpartyToProto = (c: Counterparty): MessageInitShape<typeof CounterpartySchema> => ({
  id: c.id,
  shortId: c.shortId,
  name: c.name,
  type: c.type,
  notes: orUndef(c.notes),
  createdAt: ts(c.createdAt),
  updatedAt: ts(c.updatedAt),
});

export function counterpartyRoutes(router: ConnectRouter) {
  router.service(CounterpartyService, {
    async listCounterparties(req, ctx) {
      return { counterparties: (await listCounterparties(emOf(ctx), req.search)).map(counterpartyToProto) };
    },
    async getCounterparty(req, ctx) {
      return { counterparty: counterpartyToProto(await resolveCounterparty(emOf(ctx), req.id)) };
    },
    async createCounterparty(req, ctx) {
      const em = emOf(ctx);
      const id = await createCounterparty(em, actorOf(requirePrincipal(ctx)), req);
      return { counterparty: counterpartyToProto(await loadCounterparty(em, id)) };
    },
    async updateCounterparty(req, ctx) {
      const em = emOf(ctx);
      const id = await updateCounterparty(em, actorOf(requirePrincipal(ctx)), req);
      return { counterparty: counterpartyToProto(await loadCounterparty(em, id)) };
    },
    async assignCounterparty(req, ctx) {
      return { updated: BigInt(await assignCounterparty(emOf(ctx), actorOf(requirePrincipal(ctx)), req)) };
    },
    async unassignCounterparty(req, ctx) {
      return { updated: BigInt(await unassignCounterparty(emOf(ctx), actorOf(requirePrincipal(ctx)), req)) };
    },
  });
}
