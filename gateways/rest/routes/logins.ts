import { LOGIN_ROLES } from "../../../common/enums.js";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { LoginSchema } from "../../../gen/coffer/v1/logins_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { NO_CONTENT, defineRoute, type RestRoute } from "../route.js";
import { clearedSessionCookie, readCookie, sessionCookie } from "../session-cookie.js";

const role = z.enum(LOGIN_ROLES);
// The core judges length (at least 12 characters: VALIDATION_ERROR) and the address.
const password = z.string().max(4096);
const email = z.string().max(320);
const signedIn = z.object({ user_id: z.string(), role: z.string() });

/** Web-console sign-in (the session rides in the coffer_session cookie) and login accounts. docs/auth.md. */
export const loginRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/auth/setup",
    public: true,
    summary: "What a setup link is for (first_run: it creates the first admin, so it needs an email)",
    response: z.object({ first_run: z.boolean(), email: z.string().nullable(), role: z.string() }),
    query: { token: z.string().max(200) },
    async handler({ core, opts, query }) {
      const r = await core.sessions.getSetupToken({ token: query.token }, opts);
      return { first_run: r.firstRun, email: r.email ?? null, role: r.role };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/auth/setup",
    public: true,
    summary: "Set the password with a one-time setup link and sign in (sets the coffer_session cookie)",
    response: signedIn,
    body: {
      token: z.string().max(200),
      password,
      email: email.optional(),
      name: z.string().max(200).optional(),
    },
    async handler({ core, opts, body, reply, publicUrl }) {
      const r = await core.sessions.completeSetup(body, opts);
      reply.header("set-cookie", sessionCookie(r.sessionToken, publicUrl));
      return { user_id: r.userId, role: r.role };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/auth/login",
    public: true,
    summary: "Sign in to the web console (sets the coffer_session cookie)",
    response: signedIn,
    body: { email, password },
    async handler({ core, opts, body, reply, publicUrl }) {
      const r = await core.sessions.login(body, opts);
      reply.header("set-cookie", sessionCookie(r.sessionToken, publicUrl));
      return { user_id: r.userId, role: r.role };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/auth/logout",
    public: true,
    summary: "End the console session and clear its cookie",
    status: 204,
    bodyOptional: true,
    body: {},
    async handler({ core, opts, reply, publicUrl }) {
      await core.sessions.logout({}, opts);
      reply.header("set-cookie", clearedSessionCookie(publicUrl));
      return NO_CONTENT;
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/auth/session",
    summary: "The signed-in person, role and scope",
    response: z.object({
      user_id: z.string(),
      user_name: z.string(),
      email: z.string(),
      role: z.string(),
      scope: z.string(),
      expires_at: z.string().nullable(),
    }),
    async handler({ core, opts, req, reply, publicUrl }) {
      const r = await core.sessions.getSession({}, opts);
      // The core has just slid the session's expiry; the cookie's follows.
      const token = readCookie(req.headers.cookie);
      if (token && !req.headers["x-api-key"]) reply.header("set-cookie", sessionCookie(token, publicUrl));
      return {
        user_id: r.userId,
        user_name: r.userName,
        email: r.email,
        role: r.role,
        scope: r.scope,
        expires_at: r.expiresAt ? timestampDate(r.expiresAt).toISOString() : null,
      };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/users/:id/login",
    response: restShapeOf(LoginSchema),
    async handler({ core, opts, params }) {
      return toRest(LoginSchema, (await core.logins.getLogin({ userId: params.id }, opts)).login!);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/users/:id/login",
    response: restShapeOf(LoginSchema).extend({ setup_url: z.string() }),
    status: 201,
    body: { email, role },
    async handler({ core, opts, params, body }) {
      const r = await core.logins.createLogin({ userId: params.id, email: body.email, role: body.role }, opts);
      return { ...toRest(LoginSchema, r.login!), setup_url: r.setupUrl };
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/users/:id/login",
    response: restShapeOf(LoginSchema),
    body: { role: role.optional() },
    async handler({ core, opts, params, body }) {
      return toRest(LoginSchema, (await core.logins.updateLogin({ userId: params.id, role: body.role }, opts)).login!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/users/:id/login",
    status: 204,
    async handler({ core, opts, params }) {
      await core.logins.deleteLogin({ userId: params.id }, opts);
      return NO_CONTENT;
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/users/:id/login/reset-password",
    response: z.object({ setup_url: z.string() }),
    bodyOptional: true,
    body: {},
    async handler({ core, opts, params }) {
      const r = await core.logins.resetLoginPassword({ userId: params.id }, opts);
      return { setup_url: r.setupUrl };
    },
  }),
];
