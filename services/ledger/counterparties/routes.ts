import type { ConnectRouter } from "@connectrpc/connect";
import { CounterpartyService } from "../../../gen/coffer/v1/counterparties_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import { actorOf } from "../actor.js";
import {
  assignCounterparty,
  counterpartyToProto,
  createCounterparty,
  listCounterparties,
  loadCounterparty,
  resolveCounterparty,
  unassignCounterparty,
  updateCounterparty,
} from "./counterparties.js";

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
