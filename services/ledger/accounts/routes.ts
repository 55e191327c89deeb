import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { AccountService, type AccountSchema } from "../../../gen/coffer/v1/accounts_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import { orUndef, ts } from "../../shared/proto.js";
import { actorOf } from "../actor.js";
import {
  createAccount,
  listAccounts,
  loadAccount,
  resolveAccount,
  updateAccount,
  type AccountView,
} from "./accounts.js";

const accountToProto = (a: AccountView): MessageInitShape<typeof AccountSchema> => ({
  id: a.id,
  shortId: a.shortId,
  userId: a.ownerShortId,
  userName: a.ownerName,
  // Unset for manual accounts, and once a disconnect has cleared it.
  connectionId: orUndef(a.connectionShortId),
  provider: a.provider,
  name: a.name,
  officialName: orUndef(a.officialName),
  type: a.type,
  subtype: orUndef(a.subtype),
  mask: orUndef(a.mask),
  balanceCurrent: orUndef(a.balanceCurrent),
  balanceAvailable: orUndef(a.balanceAvailable),
  balanceLimit: orUndef(a.balanceLimit),
  isoCurrencyCode: a.isoCurrencyCode,
  hidden: a.hidden,
  createdAt: ts(a.createdAt),
  updatedAt: ts(a.updatedAt),
});

export function accountRoutes(router: ConnectRouter) {
  router.service(AccountService, {
    async listAccounts(req, ctx) {
      return { accounts: (await listAccounts(emOf(ctx), req)).map(accountToProto) };
    },
    async getAccount(req, ctx) {
      const em = emOf(ctx);
      return { account: accountToProto(await loadAccount(em, (await resolveAccount(em, req.id)).id)) };
    },
    async createAccount(req, ctx) {
      const em = emOf(ctx);
      const id = await createAccount(em, actorOf(requirePrincipal(ctx)), req);
      return { account: accountToProto(await loadAccount(em, id)) };
    },
    async updateAccount(req, ctx) {
      const em = emOf(ctx);
      const id = await updateAccount(em, actorOf(requirePrincipal(ctx)), req);
      return { account: accountToProto(await loadAccount(em, id)) };
    },
  });
}
