import { z } from "zod";
import { UserSchema } from "../../../gen/coffer/v1/users_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

const name = z.string().min(1).max(200);
// The core judges the address (VALIDATION_ERROR); null clears it.
const email = z.string().max(320).nullable();

export const userRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/users",
    response: z.object({ users: z.array(restShapeOf(UserSchema)) }),
    async handler({ core, opts }) {
      const r = await core.users.listUsers({}, opts);
      return { users: r.users.map((u) => toRest(UserSchema, u)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/users",
    response: restShapeOf(UserSchema),
    status: 201,
    body: { name, email: email.optional() },
    async handler({ core, opts, body }) {
      const r = await core.users.createUser({ name: body.name, email: body.email ?? undefined }, opts);
      return toRest(UserSchema, r.user!);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/users/:id",
    response: restShapeOf(UserSchema),
    async handler({ core, opts, params }) {
      return toRest(UserSchema, (await core.users.getUser({ id: params.id }, opts)).user!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/users/:id",
    response: restShapeOf(UserSchema),
    body: { name: name.optional(), email: email.optional() },
    async handler({ core, opts, params, body }) {
      // JSON null clears the email; the core takes "" for that.
      const email = body.email === null ? "" : body.email;
      return toRest(UserSchema, (await core.users.updateUser({ id: params.id, name: body.name, email }, opts)).user!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/users/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.users.deleteUser({ id: params.id }, opts);
    },
  }),
];
