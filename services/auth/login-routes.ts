import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { LoginService, SessionService, type LoginSchema } from "../../gen/coffer/v1/logins_pb.js";
import { CLIENT_IP_HEADER, SESSION_HEADER } from "../../common/session.js";
import { emOf, kPeer, requirePrincipal } from "../context.js";
import type { CoreDeps } from "../deps.js";
import { CofferError } from "../errors/coffer-error.js";
import { ts, tsOrUndef } from "../shared/proto.js";
import {
  completeSetup,
  createLogin,
  deleteLogin,
  getLogin,
  inspectSetupToken,
  resetLoginPassword,
  signIn,
  updateLogin,
  type LoginView,
} from "./logins.js";
import { revokeSession } from "./sessions.js";

const loginToProto = (l: LoginView): MessageInitShape<typeof LoginSchema> => ({
  userId: l.userShortId,
  email: l.email,
  role: l.role,
  passwordSet: l.passwordSet,
  lastLoginAt: tsOrUndef(l.lastLoginAt),
  createdAt: ts(l.createdAt),
  updatedAt: ts(l.updatedAt),
});

/**
 * The address a sign-in attempt is limited under: the one the REST gateway
 * reports, else the connection's own peer (a client calling the core directly).
 */
const clientIp = (ctx: HandlerContext) =>
  ctx.requestHeader.get(CLIENT_IP_HEADER)?.slice(0, 100) || ctx.values.get(kPeer) || "unknown";

export function loginRoutes(router: ConnectRouter, deps: CoreDeps) {
  const publicUrl = deps.config.publicUrl;

  router.service(SessionService, {
    async getSetupToken(req, ctx) {
      const t = await inspectSetupToken(emOf(ctx), req.token);
      return { firstRun: t.firstRun, email: t.email ?? undefined, role: t.role };
    },
    async completeSetup(req, ctx) {
      const { login, sessionToken } = await completeSetup(emOf(ctx), req);
      return { userId: login.userShortId, role: login.role, sessionToken };
    },
    async login(req, ctx) {
      const { login, sessionToken } = await signIn(emOf(ctx), { ...req, ip: clientIp(ctx) });
      return { userId: login.userShortId, role: login.role, sessionToken };
    },
    async logout(_req, ctx) {
      await revokeSession(emOf(ctx), ctx.requestHeader.get(SESSION_HEADER));
      return {};
    },
    async getSession(_req, ctx) {
      const p = requirePrincipal(ctx);
      if (p.kind !== "session") throw new CofferError("MISSING_CREDENTIALS", "No console session in this call");
      return {
        userId: p.userShortId,
        userName: p.userName,
        email: p.email,
        role: p.role,
        scope: p.scope,
        expiresAt: ts(p.expiresAt),
      };
    },
  });

  router.service(LoginService, {
    async getLogin(req, ctx) {
      return { login: loginToProto(await getLogin(emOf(ctx), req.userId)) };
    },
    async createLogin(req, ctx) {
      const r = await createLogin(emOf(ctx), publicUrl, req);
      return { login: loginToProto(r.login), setupUrl: r.setupUrl };
    },
    async updateLogin(req, ctx) {
      return { login: loginToProto(await updateLogin(emOf(ctx), req)) };
    },
    async deleteLogin(req, ctx) {
      await deleteLogin(emOf(ctx), req.userId);
      return {};
    },
    async resetLoginPassword(req, ctx) {
      return { setupUrl: await resetLoginPassword(emOf(ctx), publicUrl, req.userId) };
    },
  });
}
