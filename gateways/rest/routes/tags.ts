import { z } from "zod";
import { TagSchema } from "../../../gen/coffer/v1/tags_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

// Slugs and colors are only bounded here: the core judges their form (VALIDATION_ERROR naming the rule).

/** Tags: {id} is a UUID, short id or slug. */
export const tagRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/tags",
    response: z.object({ tags: z.array(restShapeOf(TagSchema)) }),
    query: {},
    async handler({ core, opts }) {
      const r = await core.tags.listTags({}, opts);
      return { tags: r.tags.map((t) => toRest(TagSchema, t)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/tags",
    response: restShapeOf(TagSchema),
    status: 201,
    body: {
      slug: z.string().max(64).nullable().optional(),
      display_name: z.string().max(100).nullable().optional(),
      color: z.string().nullable().optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.tags.createTag(
        { slug: body.slug ?? undefined, displayName: body.display_name ?? undefined, color: body.color ?? undefined },
        opts,
      );
      return toRest(TagSchema, r.tag!);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/tags/:id",
    response: restShapeOf(TagSchema),
    async handler({ core, opts, params }) {
      return toRest(TagSchema, (await core.tags.getTag({ id: params.id }, opts)).tag!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/tags/:id",
    response: restShapeOf(TagSchema),
    body: {
      slug: z.string().min(1).max(64).optional(),
      display_name: z.string().min(1).max(100).optional(),
      color: z.string().nullable().optional(),
    },
    async handler({ core, opts, params, body }) {
      // JSON null clears the color; the core takes "" for that.
      const color = body.color === null ? "" : body.color;
      const r = await core.tags.updateTag(
        { id: params.id, slug: body.slug, displayName: body.display_name, color },
        opts,
      );
      return toRest(TagSchema, r.tag!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/tags/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.tags.deleteTag({ id: params.id }, opts);
    },
  }),
];
