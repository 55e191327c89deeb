import type { ConnectRouter } from "@connectrpc/connect";
import { AccountService } from "../../../gen/coffer/v1/accounts_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import { actorOf } from "../actor.js";
import { createAccount, listAccounts, presentAccount, resolveAccount, updateAccount } from "./accounts.js";

export function accountRoutes(router: ConnectRouter) {
  router.service(AccountService, {
    async listAccounts(req, ctx) {
      return { accounts: await listAccounts(emOf(ctx), req) };
    },
    async getAccount(req, ctx) {
      const em = emOf(ctx);
      return { account: await presentAccount(em, (await resolveAccount(em, req.id)).id) };
    },
    async createAccount(req, ctx) {
      const em = emOf(ctx);
      const id = await createAccount(em, actorOf(requirePrincipal(ctx)), req);
      return { account: await presentAccount(em, id) };
    },
    async updateAccount(req, ctx) {
      const em = emOf(ctx);
      const id = await updateAccount(em, actorOf(requirePrincipal(ctx)), req);
      return { account: await presentAccount(em, id) };
    },
  });
}
