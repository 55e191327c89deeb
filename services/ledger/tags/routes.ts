import type { ConnectRouter } from "@connectrpc/connect";
import { TagService } from "../../../gen/coffer/v1/tags_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import { actorOf } from "../actor.js";
import { createTag, deleteTag, listTags, loadTag, resolveTag, tagToProto, updateTag } from "./tags.js";

export function tagRoutes(router: ConnectRouter) {
  router.service(TagService, {
    async listTags(_req, ctx) {
      return { tags: (await listTags(emOf(ctx))).map(tagToProto) };
    },
    async getTag(req, ctx) {
      return { tag: tagToProto(await resolveTag(emOf(ctx), req.id)) };
    },
    async createTag(req, ctx) {
      const em = emOf(ctx);
      const id = await createTag(em, actorOf(requirePrincipal(ctx)), req);
      return { tag: tagToProto(await loadTag(em, id)) };
    },
    async updateTag(req, ctx) {
      const em = emOf(ctx);
      const id = await updateTag(em, actorOf(requirePrincipal(ctx)), req);
      return { tag: tagToProto(await loadTag(em, id)) };
    },
    async deleteTag(req, ctx) {
      await deleteTag(emOf(ctx), actorOf(requirePrincipal(ctx)), req.id);
      return {};
    },
  });
}
