import { TagSchema } from "../../../gen/coffer/v1/tags_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { body, nullableStr, str, type RestRoute } from "../route.js";

/** Tags: {id} is a UUID, short id or slug. */
export const tagRoutes: RestRoute[] = [
  {
    method: "GET",
    url: "/api/v1/tags",
    schema: { querystring: { type: "object", properties: {}, additionalProperties: false } },
    async handler({ core, opts }) {
      const r = await core.tags.listTags({}, opts);
      return { tags: r.tags.map((t) => toRest(TagSchema, t)) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/tags",
    status: 201,
    schema: {
      body: body({
        slug: nullableStr({ maxLength: 64 }),
        display_name: nullableStr({ maxLength: 100 }),
        color: nullableStr(),
      }),
    },
    async handler({ core, opts, body }) {
      const r = await core.tags.createTag(
        { slug: body.slug ?? undefined, displayName: body.display_name ?? undefined, color: body.color ?? undefined },
        opts,
      );
      return toRest(TagSchema, r.tag!);
    },
  },
  {
    method: "GET",
    url: "/api/v1/tags/:id",
    async handler({ core, opts, params }) {
      return toRest(TagSchema, (await core.tags.getTag({ id: params.id }, opts)).tag!);
    },
  },
  {
    method: "PATCH",
    url: "/api/v1/tags/:id",
    schema: {
      body: body({
        slug: str({ minLength: 1, maxLength: 64 }),
        display_name: str({ minLength: 1, maxLength: 100 }),
        color: nullableStr(),
      }),
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
  },
  {
    method: "DELETE",
    url: "/api/v1/tags/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.tags.deleteTag({ id: params.id }, opts);
    },
  },
];
