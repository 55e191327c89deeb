import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { TagService, type TagSchema } from "../../../gen/coffer/v1/tags_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import type { Tag } from "../../db/entities/index.js";
import { orUndef, ts } from "../../shared/proto.js";
import { actorOf } from "../actor.js";
import { createTag, deleteTag, listTags, loadTag, resolveTag, updateTag } from "./tags.js";

const tagToProto = (t: Tag): MessageInitShape<typeof TagSchema> => ({
  id: t.id,
  shortId: t.shortId,
  slug: t.slug,
  displayName: t.displayName,
  color: orUndef(t.color),
  createdAt: ts(t.createdAt),
  updatedAt: ts(t.updatedAt),
});

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
