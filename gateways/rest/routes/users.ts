import { UserSchema } from "../../../gen/coffer/v1/users_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { body, nullableStr, str, type RestRoute } from "../route.js";

export const userRoutes: RestRoute[] = [
  {
    method: "GET",
    url: "/api/v1/users",
    async handler({ core, opts }) {
      const r = await core.users.listUsers({}, opts);
      return { users: r.users.map((u) => toRest(UserSchema, u)) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/users",
    status: 201,
    schema: {
      body: body({ name: str({ minLength: 1, maxLength: 200 }), email: nullableStr({ maxLength: 320 }) }, ["name"]),
    },
    async handler({ core, opts, body }) {
      const r = await core.users.createUser({ name: body.name, email: body.email ?? undefined }, opts);
      return toRest(UserSchema, r.user!);
    },
  },
  {
    method: "GET",
    url: "/api/v1/users/:id",
    async handler({ core, opts, params }) {
      return toRest(UserSchema, (await core.users.getUser({ id: params.id }, opts)).user!);
    },
  },
  {
    method: "PATCH",
    url: "/api/v1/users/:id",
    schema: { body: body({ name: str({ minLength: 1, maxLength: 200 }), email: nullableStr({ maxLength: 320 }) }) },
    async handler({ core, opts, params, body }) {
      // JSON null clears the email; the core takes "" for that.
      const email = body.email === null ? "" : body.email;
      return toRest(UserSchema, (await core.users.updateUser({ id: params.id, name: body.name, email }, opts)).user!);
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/users/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.users.deleteUser({ id: params.id }, opts);
    },
  },
];
