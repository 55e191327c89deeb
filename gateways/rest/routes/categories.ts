import {
  CategorySchema,
  DeleteCategoryResponseSchema,
  MergeCategoryResponseSchema,
} from "../../../gen/coffer/v1/categories_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { body, nullableStr, str, type RestRoute } from "../route.js";

/** Categories: {id} is a UUID, short id or slug. */
export const categoryRoutes: RestRoute[] = [
  {
    method: "GET",
    url: "/api/v1/categories",
    schema: { querystring: { type: "object", properties: {}, additionalProperties: false } },
    async handler({ core, opts }) {
      const r = await core.categories.listCategories({}, opts);
      return { categories: r.categories.map((c) => toRest(CategorySchema, c)) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/categories",
    status: 201,
    schema: {
      body: body(
        {
          display_name: str({ minLength: 1, maxLength: 100 }),
          slug: nullableStr({ maxLength: 64 }),
          parent_slug: nullableStr({ maxLength: 64 }),
        },
        ["display_name"],
      ),
    },
    async handler({ core, opts, body }) {
      const r = await core.categories.createCategory(
        { displayName: body.display_name, slug: body.slug ?? undefined, parentSlug: body.parent_slug ?? undefined },
        opts,
      );
      return toRest(CategorySchema, r.category!);
    },
  },
  {
    method: "GET",
    url: "/api/v1/categories/:id",
    async handler({ core, opts, params }) {
      return toRest(CategorySchema, (await core.categories.getCategory({ id: params.id }, opts)).category!);
    },
  },
  {
    method: "PUT",
    url: "/api/v1/categories/:id",
    schema: {
      body: body({
        display_name: str({ minLength: 1, maxLength: 100 }),
        slug: str({ minLength: 1, maxLength: 64 }),
        parent_slug: nullableStr({ maxLength: 64 }),
      }),
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
  },
  {
    method: "DELETE",
    url: "/api/v1/categories/:id",
    async handler({ core, opts, params }) {
      return toRest(DeleteCategoryResponseSchema, await core.categories.deleteCategory({ id: params.id }, opts));
    },
  },
  {
    method: "POST",
    url: "/api/v1/categories/:id/merge",
    schema: { body: body({ into: str({ minLength: 1, maxLength: 64 }) }, ["into"]) },
    async handler({ core, opts, params, body }) {
      return toRest(
        MergeCategoryResponseSchema,
        await core.categories.mergeCategory({ id: params.id, into: body.into }, opts),
      );
    },
  },
];
