import type { JsonObject } from "@bufbuild/protobuf";
import type { Em } from "../../db/orm.js";
import { setTransactionMetadata as setTransactionMetadataColumn } from "../../db/tables/transactions-edits.js";
import { CofferError, validation } from "../../errors/coffer-error.js";
import { parseJsonValue } from "../../shared/validate.js";
import type { Actor } from "../actor.js";
import { recordAnnotation } from "../annotations.js";
import { lockTransaction, quoted } from "./locked-row.js";
import { loadTransaction, resolveTransactionId, type TransactionView } from "./view.js";

// A transaction's metadata is a flat-keyed JSON object for the household's and
// agents' own notes (receipt ids, trip names, ...). The limits keep a row small
// enough that lists of a million transactions stay fast.
export const METADATA_LIMITS = { maxKeys: 50, maxBytes: 16 * 1024 } as const;
const KEY = /^[A-Za-z0-9_.-]{1,64}$/;

function checkKeys(obj: JsonObject): void {
  for (const key of Object.keys(obj)) {
    if (!KEY.test(key))
      throw validation(`metadata key ${quoted(key)} must be 1-64 characters of A-Z, a-z, 0-9, _, . and -`);
  }
}

function checkLimits(obj: Record<string, unknown>): void {
  const keys = Object.keys(obj).length;
  if (keys > METADATA_LIMITS.maxKeys)
    throw validation(`metadata may have at most ${METADATA_LIMITS.maxKeys} keys (this change leaves ${keys})`);
  const bytes = Buffer.byteLength(JSON.stringify(obj));
  if (bytes > METADATA_LIMITS.maxBytes) {
    throw validation(`metadata may be at most ${METADATA_LIMITS.maxBytes} bytes as JSON (this change leaves ${bytes})`);
  }
}

/** Deep equality of JSON values, ignoring object key order (jsonb does not keep it). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a))
    return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as never)[k], (b as never)[k]))
  );
}

/** Writes the new object and one annotation naming the keys set and removed, unless nothing changed. */
async function writeMetadata(
  tx: Em,
  actor: Actor,
  id: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  action: "metadata_set" | "metadata_deleted",
  extra: Record<string, unknown>,
): Promise<void> {
  const set = Object.keys(after).filter(
    (k) => !Object.prototype.hasOwnProperty.call(before, k) || !sameJson(before[k], after[k]),
  );
  const removed = Object.keys(before).filter((k) => !Object.prototype.hasOwnProperty.call(after, k));
  if (set.length === 0 && removed.length === 0) return;
  await setTransactionMetadataColumn(tx, id, after);
  const details =
    action === "metadata_set"
      ? { keys_set: set.sort(), keys_removed: removed.sort(), ...extra }
      : { keys: removed.sort(), ...extra };
  await recordAnnotation(tx, actor, { entityType: "transaction", entityId: id, transactionId: id, action, details });
}

/**
 * replace = true swaps the whole object (PUT); otherwise the keys are merged
 * (PATCH). In both, a key whose value is null is removed, never stored as null.
 */
export async function setTransactionMetadata(
  em: Em,
  actor: Actor,
  rawId: string,
  metadata: JsonObject | undefined,
  replace: boolean,
): Promise<TransactionView> {
  if (metadata === undefined || metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
    throw validation("metadata must be a JSON object");
  }
  checkKeys(metadata);
  const given = parseJsonValue(metadata, "metadata") as Record<string, unknown>;
  // The request alone must already fit; the merged result is checked again under the lock.
  checkLimits(Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null)));
  const id = await resolveTransactionId(em, rawId);
  await em.transactional(async (tx) => {
    const row = await lockTransaction(tx, id);
    // A Map, not object assignment: a key such as "__proto__" must stay a plain key.
    const merged = new Map<string, unknown>(replace ? [] : Object.entries(row.metadata));
    for (const [k, v] of Object.entries(given)) {
      if (v === null) merged.delete(k);
      else merged.set(k, v);
    }
    const next = Object.fromEntries(merged);
    checkLimits(next);
    await writeMetadata(tx, actor, id, row.metadata, next, "metadata_set", { replace });
  });
  return loadTransaction(em, id);
}

/**
 * Removes the given keys (each must be present, else NOT_FOUND and nothing
 * changes), or every key when none are given (a no-op on empty metadata).
 */
export async function deleteTransactionMetadata(
  em: Em,
  actor: Actor,
  rawId: string,
  rawKeys: string[],
): Promise<TransactionView> {
  const keys = [...new Set(rawKeys)];
  const id = await resolveTransactionId(em, rawId);
  await em.transactional(async (tx) => {
    const row = await lockTransaction(tx, id);
    const missing = keys.find((k) => !Object.prototype.hasOwnProperty.call(row.metadata, k));
    if (missing !== undefined)
      throw new CofferError("NOT_FOUND", `Metadata key ${quoted(missing)} not found on this transaction`);
    const next =
      keys.length === 0 ? {} : Object.fromEntries(Object.entries(row.metadata).filter(([k]) => !keys.includes(k)));
    await writeMetadata(tx, actor, id, row.metadata, next, "metadata_deleted", { all: keys.length === 0 });
  });
  return loadTransaction(em, id);
}
