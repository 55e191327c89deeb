import type { ConnectRouter } from "@connectrpc/connect";
import { CategoryService } from "../../../gen/coffer/v1/categories_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import { actorOf } from "../actor.js";
import { createCategory, deleteCategory, listCategoryTree, mergeCategory, presentCategory, resolveCategory, updateCategory } from "./categories.js";

export function categoryRoutes(router: ConnectRouter) {
  router.service(CategoryService, {
    async listCategories(_req, ctx) {
      return { categories: await listCategoryTree(emOf(ctx)) };
    },
    async getCategory(req, ctx) {
      const em = emOf(ctx);
      return { category: await presentCategory(em, (await resolveCategory(em, req.id)).id) };
    },
    async createCategory(req, ctx) {
      const em = emOf(ctx);
      const id = await createCategory(em, actorOf(requirePrincipal(ctx)), req);
      return { category: await presentCategory(em, id) };
    },
    async updateCategory(req, ctx) {
      const em = emOf(ctx);
      const id = await updateCategory(em, actorOf(requirePrincipal(ctx)), req);
      return { category: await presentCategory(em, id) };
    },
    async deleteCategory(req, ctx) {
      const count = await deleteCategory(emOf(ctx), actorOf(requirePrincipal(ctx)), req.id);
      return { transactionsUncategorized: BigInt(count) };
    },
    async mergeCategory(req, ctx) {
      const em = emOf(ctx);
      const { targetId, moved } = await mergeCategory(em, actorOf(requirePrincipal(ctx)), req);
      return { category: await presentCategory(em, targetId), transactionsMoved: BigInt(moved) };
    },
  });
}
