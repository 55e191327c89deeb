import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { CounterpartyEntity, type Counterparty } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import {
  counterpartyNameTaken,
  counterpartyShortIds,
  findCounterpartyIdByName as findIdByName,
} from "../../db/tables/counterparties.js";
import {
  lockTransactionCounterparties,
  setTransactionsCounterparty,
  type LockedCounterpartyRow,
} from "../../db/tables/transactions-edits.js";
import { CofferError, notFound, validation } from "../../errors/coffer-error.js";
import { withShortId } from "../../ids/insert.js";
import { parseId } from "../../ids/resolve-id.js";
import type { Actor } from "../actor.js";
import { recordAnnotation, recordAnnotations } from "../annotations.js";
import { checkBatchSize, resolveTransactionIds } from "../transactions/batch-ids.js";
import { parseText, searchTerm } from "../../shared/validate.js";
import { nowOf } from "../../clock.js";

import { COUNTERPARTY_TYPES } from "../../../common/enums.js";
export { COUNTERPARTY_TYPES };
/** Most transactions one assign or unassign call may name. */

const nameTaken = (name: string) => new CofferError("CONFLICT", `A counterparty named "${name}" already exists`);
const isNameTaken = (e: unknown) => e instanceof UniqueConstraintViolationException && /name/.test(e.message);

const parseName = (raw: string | undefined) => parseText(raw, "name", { max: 200 });

function parseType(raw: string): string {
  const type = raw.trim().toLowerCase();
  if (!(COUNTERPARTY_TYPES as readonly string[]).includes(type))
    throw validation(`type must be one of ${COUNTERPARTY_TYPES.join(", ")}`);
  return type;
}

/** "" clears the notes. */
const parseNotes = (raw: string): string | null =>
  parseText(raw, "notes", { min: 0, max: 2000, multiline: true }) || null;

export async function resolveCounterparty(em: Em, raw: string): Promise<Counterparty> {
  const lookup = parseId(raw);
  const where = lookup?.column === "id" ? { id: lookup.value } : lookup ? { shortId: lookup.value } : null;
  const found = where ? await em.findOne(CounterpartyEntity, where, { refresh: true }) : null;
  if (!found) throw notFound("Counterparty");
  return found;
}

export async function loadCounterparty(em: Em, id: string): Promise<Counterparty> {
  return em.findOneOrFail(CounterpartyEntity, { id }, { refresh: true });
}

/** The longest search a counterparty list takes. */
const MAX_SEARCH_LENGTH = 500;

/**
 * Every counterparty by name, or those whose name contains `search`
 * (case-insensitive, taken literally; control characters count as spaces).
 */
export async function listCounterparties(em: Em, search?: string): Promise<Counterparty[]> {
  if (search !== undefined && search.length > MAX_SEARCH_LENGTH) {
    throw new CofferError("INVALID_PARAMETER", `search must be at most ${MAX_SEARCH_LENGTH} characters`);
  }
  const term = search === undefined ? "" : searchTerm(search);
  const where = term ? { name: { $ilike: `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } } : {};
  return em.find(CounterpartyEntity, where, { orderBy: { name: "asc", id: "asc" }, refresh: true });
}

/** The id of the counterparty with this name (compared case-insensitively, like its unique index), or null. */
export async function findCounterpartyIdByName(em: Em, rawName: string): Promise<string | null> {
  return findIdByName(em, parseName(rawName));
}

async function assertNameFree(em: Em, name: string, exceptId: string | null): Promise<void> {
  if (await counterpartyNameTaken(em, name, exceptId)) throw nameTaken(name);
}

export async function createCounterparty(
  em: Em,
  actor: Actor,
  req: { name: string; type?: string; notes?: string },
): Promise<string> {
  const name = parseName(req.name);
  const type = req.type === undefined || req.type === "" ? "merchant" : parseType(req.type);
  const notes = req.notes === undefined ? null : parseNotes(req.notes);
  return em.transactional(async (tx) => {
    await assertNameFree(tx, name, null);
    const id = crypto.randomUUID();
    const now = nowOf(tx);
    // Each attempt in its own savepoint, so a short-id clash does not abort the transaction.
    await withShortId((shortId) =>
      tx.transactional((sp) =>
        sp.insert(CounterpartyEntity, { id, shortId, name, type, notes, createdAt: now, updatedAt: now }),
      ),
    ).catch((e) => {
      throw isNameTaken(e) ? nameTaken(name) : e;
    });
    await recordAnnotation(tx, actor, {
      entityType: "counterparty",
      entityId: id,
      action: "created",
      details: { name, type },
    });
    return id;
  });
}

export async function updateCounterparty(
  em: Em,
  actor: Actor,
  req: { id: string; name?: string; type?: string; notes?: string },
): Promise<string> {
  return em.transactional(async (tx) => {
    const c = await resolveCounterparty(tx, req.id);
    const set: Partial<Counterparty> = {};
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (req.name !== undefined) {
      const name = parseName(req.name);
      if (name !== c.name) {
        await assertNameFree(tx, name, c.id);
        set.name = name;
        changes.name = { from: c.name, to: name };
      }
    }
    if (req.type !== undefined) {
      const type = parseType(req.type);
      if (type !== c.type) {
        set.type = type;
        changes.type = { from: c.type, to: type };
      }
    }
    if (req.notes !== undefined) {
      const notes = parseNotes(req.notes);
      if (notes !== c.notes) {
        set.notes = notes;
        changes.notes = { from: c.notes, to: notes };
      }
    }
    if (Object.keys(changes).length === 0) return c.id;
    await tx.nativeUpdate(CounterpartyEntity, { id: c.id }, { ...set, updatedAt: nowOf(tx) }).catch((e) => {
      throw isNameTaken(e) ? nameTaken(String(set.name)) : e;
    });
    await recordAnnotation(tx, actor, {
      entityType: "counterparty",
      entityId: c.id,
      action: "updated",
      details: { changes },
    });
    return c.id;
  });
}

/**
 * The named live transactions, locked for the change. All or nothing: any id
 * that names no live transaction (malformed, unknown, deleted) is a 404.
 */
async function lockTransactions(tx: Em, rawIds: string[]): Promise<LockedCounterpartyRow[]> {
  checkBatchSize(rawIds);
  const ids = await resolveTransactionIds(tx, rawIds);
  const rows = await lockTransactionCounterparties(tx, ids);
  // Deleted between resolving and locking: still all or nothing.
  if (rows.length < ids.length || rows.some((r) => r.deleted)) {
    throw new CofferError("NOT_FOUND", "A transaction was deleted meanwhile; nothing was changed");
  }
  return rows;
}

async function setCounterparty(tx: Em, ids: string[], counterpartyId: string | null): Promise<void> {
  if (ids.length === 0) return;
  await setTransactionsCounterparty(tx, ids, counterpartyId);
}

/** Makes `rawId` the counterparty of every named transaction. Returns how many changed. */
export async function assignCounterparty(
  em: Em,
  actor: Actor,
  req: { id: string; transactionIds: string[] },
): Promise<number> {
  return em.transactional(async (tx) => {
    const cp = await resolveCounterparty(tx, req.id);
    const rows = await lockTransactions(tx, req.transactionIds);
    const changing = rows.filter((r) => r.counterparty_id !== cp.id);
    await setCounterparty(
      tx,
      changing.map((r) => r.id),
      cp.id,
    );
    const previous = await counterpartyShortIds(
      tx,
      changing.map((r) => r.counterparty_id).filter((x): x is string => x !== null),
    );
    await recordAnnotations(
      tx,
      actor,
      changing.map((r) => ({
        entityType: "transaction" as const,
        entityId: r.id,
        transactionId: r.id,
        action: "counterparty_assigned",
        details: {
          counterparty_id: cp.shortId,
          counterparty_name: cp.name,
          previous_counterparty_id: r.counterparty_id ? (previous.get(r.counterparty_id) ?? null) : null,
        },
      })),
    );
    return changing.length;
  });
}

/** Clears the counterparty of the named transactions where it is this one. Returns how many changed. */
export async function unassignCounterparty(
  em: Em,
  actor: Actor,
  req: { id: string; transactionIds: string[] },
): Promise<number> {
  return em.transactional(async (tx) => {
    const cp = await resolveCounterparty(tx, req.id);
    const rows = await lockTransactions(tx, req.transactionIds);
    const changing = rows.filter((r) => r.counterparty_id === cp.id);
    await setCounterparty(
      tx,
      changing.map((r) => r.id),
      null,
    );
    await recordAnnotations(
      tx,
      actor,
      changing.map((r) => ({
        entityType: "transaction" as const,
        entityId: r.id,
        transactionId: r.id,
        action: "counterparty_unassigned",
        details: { counterparty_id: cp.shortId, counterparty_name: cp.name },
      })),
    );
    return changing.length;
  });
}
