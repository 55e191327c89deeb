import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { UserService, type UserSchema } from "../../gen/coffer/v1/users_pb.js";
import { emOf } from "../context.js";
import type { User } from "../db/entities/index.js";
import { orUndef, ts } from "../shared/proto.js";
import { createUser, deleteUser, listUsers, resolveUser, updateUser } from "./users.js";

const userToProto = (u: User): MessageInitShape<typeof UserSchema> => ({
  id: u.id,
  shortId: u.shortId,
  name: u.name,
  email: orUndef(u.email),
  createdAt: ts(u.createdAt),
  updatedAt: ts(u.updatedAt),
});

export function userRoutes(router: ConnectRouter) {
  router.service(UserService, {
    async listUsers(_req, ctx) {
      return { users: (await listUsers(emOf(ctx))).map(userToProto) };
    },
    async getUser(req, ctx) {
      return { user: userToProto(await resolveUser(emOf(ctx), req.id)) };
    },
    async createUser(req, ctx) {
      return { user: userToProto(await createUser(emOf(ctx), req)) };
    },
    async updateUser(req, ctx) {
      return { user: userToProto(await updateUser(emOf(ctx), req)) };
    },
    async deleteUser(req, ctx) {
      await deleteUser(emOf(ctx), req.id);
      return {};
    },
  });
}
