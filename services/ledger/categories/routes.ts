import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { CategoryService, type CategorySchema } from "../../../gen/coffer/v1/categories_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import { ts } from "../../shared/proto.js";
import { actorOf } from "../actor.js";
import {
  createCategory,
  deleteCategory,
  listCategoryTree,
  loadCategory,
  mergeCategory,
  resolveCategory,
  updateCategory,
  type CategoryNode,
} from "./categories.js";

function categoryToProto({ category: c, parent, children }: CategoryNode): MessageInitShape<typeof CategorySchema> {
  return {
    id: c.id,
    shortId: c.shortId,
    slug: c.slug,
    displayName: c.displayName,
    parentSlug: parent?.slug,
    parentId: parent?.shortId,
    isSystem: c.isSystem,
    children: children.map(categoryToProto),
    createdAt: ts(c.createdAt),
    updatedAt: ts(c.updatedAt),
  };
}

export function categoryRoutes(router: ConnectRouter) {
  router.service(CategoryService, {
    async listCategories(_req, ctx) {
      return { categories: (await listCategoryTree(emOf(ctx))).map(categoryToProto) };
    },
    async getCategory(req, ctx) {
      const em = emOf(ctx);
      return { category: categoryToProto(await loadCategory(em, (await resolveCategory(em, req.id)).id)) };
    },
    async createCategory(req, ctx) {
      const em = emOf(ctx);
      const id = await createCategory(em, actorOf(requirePrincipal(ctx)), req);
      return { category: categoryToProto(await loadCategory(em, id)) };
    },
    async updateCategory(req, ctx) {
      const em = emOf(ctx);
      const id = await updateCategory(em, actorOf(requirePrincipal(ctx)), req);
      return { category: categoryToProto(await loadCategory(em, id)) };
    },
    async deleteCategory(req, ctx) {
      const count = await deleteCategory(emOf(ctx), actorOf(requirePrincipal(ctx)), req.id);
      return { transactionsUncategorized: BigInt(count) };
    },
    async mergeCategory(req, ctx) {
      const em = emOf(ctx);
      const { targetId, moved } = await mergeCategory(em, actorOf(requirePrincipal(ctx)), req);
      return { category: categoryToProto(await loadCategory(em, targetId)), transactionsMoved: BigInt(moved) };
    },
  });
}
