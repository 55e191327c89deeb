import { SLUG } from "../../../../common/validation.js";
import { listValue, refuse, wrongType, type Leaf, type Where } from "./leaf.js";

/**
 * Tag operators over the transaction's tag slugs: contains (carries this
 * tag), not_contains, in (carries at least one of these). Slugs are
 * lower-case, so the values are lower-cased before they are checked.
 */

function slugValue(where: Where, op: string, v: unknown, key: string): string {
  if (typeof v !== "string") return wrongType(where, key, op, "a tag slug", v);
  const slug = v.trim().toLowerCase();
  if (!SLUG.test(slug)) refuse(where, `${key} must be a tag slug (1 to 64 characters of a-z, 0-9 and _)`);
  return slug;
}

export function compileTags(op: string, leaf: Leaf, where: Where): (tags: readonly string[]) => boolean {
  switch (op) {
    case "contains": {
      const slug = slugValue(where, op, leaf.value, "value");
      return (tags) => tags.includes(slug);
    }
    case "not_contains": {
      const slug = slugValue(where, op, leaf.value, "value");
      return (tags) => !tags.includes(slug);
    }
    case "in": {
      const set = new Set(listValue(where, op, leaf.value).map((v, i) => slugValue(where, op, v, `value[${i}]`)));
      return (tags) => tags.some((t) => set.has(t));
    }
    default:
      throw new Error(`not a tags operator: ${op}`);
  }
}
