import { z } from "zod";
import {
  CategorySchema,
  DeleteCategoryResponseSchema,
  MergeCategoryResponseSchema,
} from "../../../gen/coffer/v1/categories_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

// Slugs are only bounded here: the core judges their form (VALIDATION_ERROR naming the rule).
const displayName = z.string().min(1).max(100);

/** Categories: {id} is a UUID, short id or slug. */
export const categoryRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/categories",
    response: z.object({ categories: z.array(restShapeOf(CategorySchema)) }),
    query: {},
    async handler({ core, opts }) {
      const r = await core.categories.listCategories({}, opts);
      return { categories: r.categories.map((c) => toRest(CategorySchema, c)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/categories",
    response: restShapeOf(CategorySchema),
    status: 201,
    body: {
      display_name: displayName,
      slug: z.string().max(64).nullable().optional(),
      parent_slug: z.string().max(64).nullable().optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.categories.createCategory(
        { displayName: body.display_name, slug: body.slug ?? undefined, parentSlug: body.parent_slug ?? undefined },
        opts,
      );
      return toRest(CategorySchema, r.category!);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/categories/:id",
    response: restShapeOf(CategorySchema),
    async handler({ core, opts, params }) {
      return toRest(CategorySchema, (await core.categories.getCategory({ id: params.id }, opts)).category!);
    },
  }),
  defineRoute({
    method: "PUT",
    url: "/api/v1/categories/:id",
    response: restShapeOf(CategorySchema),
    body: {
      display_name: displayName.optional(),
      slug: z.string().min(1).max(64).optional(),
      parent_slug: z.string().max(64).nullable().optional(),
    },
    async handler({ core, opts, params, body }) {
      // parent_slug null or "" makes the category top-level; left out, the parent stays.
      const parentSlug = body.parent_slug === null ? "" : body.parent_slug;
      const r = await core.categories.updateCategory(
        { id: params.id, displayName: body.display_name, slug: body.slug, parentSlug },
        opts,
      );
      return toRest(CategorySchema, r.category!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/categories/:id",
    response: restShapeOf(DeleteCategoryResponseSchema),
    async handler({ core, opts, params }) {
      return toRest(DeleteCategoryResponseSchema, await core.categories.deleteCategory({ id: params.id }, opts));
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/categories/:id/merge",
    response: restShapeOf(MergeCategoryResponseSchema),
    body: { into: z.string().min(1).max(64) },
    async handler({ core, opts, params, body }) {
      return toRest(
        MergeCategoryResponseSchema,
        await core.categories.mergeCategory({ id: params.id, into: body.into }, opts),
      );
    },
  }),
];
