import { CommentEntity, type Comment } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import {
  deleteCommentRow,
  findCommentIdByBody,
  insertComments,
  lockTransactionComment,
  setCommentBody,
  type LockedComment,
} from "../../db/tables/comments.js";
import { notFound } from "../../errors/coffer-error.js";
import { parseText } from "../../shared/validate.js";
import { parseId } from "../../ids/resolve-id.js";
import { newShortId } from "../../ids/short-id.js";
import type { Actor } from "../actor.js";
import { recordAnnotation } from "../annotations.js";
import { lockTransaction, transactionShortId } from "./locked-row.js";
import { resolveTransactionId } from "./view.js";

// Comments are the household's shared notes on a transaction. Any full_access
// key may edit or delete any comment (the household is one trust domain and the
// key scope is the permission); the annotation of every edit and deletion keeps
// who did it and the previous text.

export const MAX_COMMENT_CHARS = 10_000;

export const parseCommentBody = (raw: string | undefined): string =>
  parseText(raw, "body", { max: MAX_COMMENT_CHARS, multiline: true });

/** A comment with the short id of its transaction (what the API shows as transaction_id). */
export type CommentView = Comment & { transactionShortId: string };

const view = (c: Comment, transactionShortId: string): CommentView => ({ ...c, transactionShortId });

/** The id of the oldest comment with exactly this body on the transaction (UUID or short id), or null. */
export async function findCommentId(em: Em, rawTransactionId: string, rawBody: string): Promise<string | null> {
  const body = parseCommentBody(rawBody);
  const lookup = parseId(rawTransactionId);
  if (!lookup) return null;
  return findCommentIdByBody(em, lookup, body);
}

/** Oldest first. */
export async function listComments(em: Em, rawTransactionId: string): Promise<CommentView[]> {
  const id = await resolveTransactionId(em, rawTransactionId);
  const shortId = await transactionShortId(em, id);
  const comments = await em.find(CommentEntity, { transactionId: id }, { orderBy: { createdAt: "asc", id: "asc" } });
  return comments.map((c) => view(c, shortId));
}

export async function addComment(
  em: Em,
  actor: Actor,
  rawTransactionId: string,
  rawBody: string,
): Promise<CommentView> {
  const body = parseCommentBody(rawBody);
  const transactionId = await resolveTransactionId(em, rawTransactionId);
  return em.transactional(async (tx) => {
    const row = await lockTransaction(tx, transactionId);
    const id = crypto.randomUUID();
    // clock_timestamp() keeps comments made in quick succession in order; a short-id clash is retried.
    for (let attempt = 0; ; attempt++) {
      if (attempt === 5) throw new Error("could not allocate a unique short id for a comment");
      const inserted = await insertComments(tx, [
        {
          id,
          short_id: newShortId(),
          transaction_id: transactionId,
          body,
          author_type: actor.type,
          author_key_id: actor.keyId,
          author_name: actor.name,
        },
      ]);
      if (inserted.length > 0) break;
    }
    const comment = await tx.findOneOrFail(CommentEntity, { id });
    await recordAnnotation(tx, actor, {
      entityType: "comment",
      entityId: id,
      transactionId,
      action: "comment_added",
      details: { comment_id: comment.shortId },
    });
    return view(comment, row.shortId);
  });
}

/**
 * The comment, locked, when it belongs to this transaction; any other id (or
 * one of another transaction's comments) is NOT_FOUND.
 */
async function lockComment(tx: Em, transactionId: string, rawCommentId: string): Promise<LockedComment> {
  const lookup = parseId(rawCommentId);
  const row = lookup ? await lockTransactionComment(tx, transactionId, lookup) : null;
  if (!row) throw notFound("Comment");
  return row;
}

export async function updateComment(
  em: Em,
  actor: Actor,
  rawTransactionId: string,
  rawCommentId: string,
  rawBody: string,
): Promise<CommentView> {
  const body = parseCommentBody(rawBody);
  const transactionId = await resolveTransactionId(em, rawTransactionId);
  return em.transactional(async (tx) => {
    const row = await lockTransaction(tx, transactionId);
    const before = await lockComment(tx, transactionId, rawCommentId);
    if (before.body !== body) {
      await setCommentBody(tx, before.id, body);
      await recordAnnotation(tx, actor, {
        entityType: "comment",
        entityId: before.id,
        transactionId,
        action: "comment_edited",
        details: { comment_id: before.short_id, from: before.body, to: body },
      });
    }
    return view(await tx.findOneOrFail(CommentEntity, { id: before.id }, { refresh: true }), row.shortId);
  });
}

export async function deleteComment(
  em: Em,
  actor: Actor,
  rawTransactionId: string,
  rawCommentId: string,
): Promise<void> {
  const transactionId = await resolveTransactionId(em, rawTransactionId);
  await em.transactional(async (tx) => {
    await lockTransaction(tx, transactionId);
    const before = await lockComment(tx, transactionId, rawCommentId);
    await deleteCommentRow(tx, before.id);
    await recordAnnotation(tx, actor, {
      entityType: "comment",
      entityId: before.id,
      transactionId,
      action: "comment_deleted",
      details: { comment_id: before.short_id, body: before.body },
    });
  });
}
