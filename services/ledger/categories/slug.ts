import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { SLUG_MAX } from "../../../common/validation.js";
import { validation } from "../../errors/coffer-error.js";
import { parseSlug, parseText } from "../../shared/validate.js";

/**
 * A slug from a display name: accents dropped, lowercase, every run of
 * characters outside [a-z0-9] becomes one "_", no leading or trailing "_",
 * at most 64 characters. "" when nothing usable is left.
 */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, SLUG_MAX)
    .replace(/_+$/, "");
}

/** The slug given, or one derived from the display name when none was given. */
export function slugOrDerived(raw: string | undefined, displayName: string): string {
  if (raw !== undefined && raw.trim() !== "") return parseSlug(raw);
  const derived = slugify(displayName);
  if (!derived) throw validation("slug cannot be derived from display_name; give a slug of a-z, 0-9 and _");
  return derived;
}

export const parseDisplayName = (raw: string | undefined, max = 100) => parseText(raw, "display_name", { max });

/** True for a unique violation on a slug column (a concurrent insert won the race). */
export function isSlugTaken(e: unknown): boolean {
  return e instanceof UniqueConstraintViolationException && /slug/.test(e.message);
}
