import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { money, when } from "../../app/format";
import type { Annotation, Transaction } from "../../api/schemas";
import { TAGS_KEY } from "../taxonomy";
import { COUNT_KEY, LIST_KEY, replaceInLists } from "./query";

/** One line of the audit timeline, in words. */
function describe(a: Annotation): string {
  const d = a.details ?? {};
  const s = (k: string) => (typeof d[k] === "string" || typeof d[k] === "number" ? String(d[k]) : "");
  const rule = s("rule_name") ? ` (rule “${s("rule_name")}”)` : "";
  switch (a.action) {
    case "category_set":
      return `Category ${s("from") || "none"} → ${s("to") || "none"}${d.batch ? " (bulk)" : ""}${rule}`;
    case "category_reset":
      return `Category reset from ${s("from") || "none"}`;
    case "tag_added":
      return `Tag ${s("tag")} added${rule}${s("reason") ? `: ${s("reason")}` : ""}`;
    case "tag_removed":
      return `Tag ${s("tag")} removed${rule}`;
    case "comment_added":
      return "Comment added";
    case "comment_edited":
      return "Comment edited";
    case "comment_deleted":
      return "Comment deleted";
    case "metadata_set":
      return `Metadata changed${rule}`;
    default:
      return `${a.action.replace(/_/g, " ")}${rule}`;
  }
}

/**
 * The side panel of one transaction: its facts, tags (add, remove), comments (add) and the audit
 * timeline. Escape or "Close" returns focus to the row that opened it.
 */
export function TransactionPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const qc = useQueryClient();
  const heading = useRef<HTMLHeadingElement>(null);
  const t = useQuery({
    queryKey: [LIST_KEY, "one", id],
    queryFn: () => call(api.GET("/api/v1/transactions/{id}", { params: { path: { id } } })),
  });
  const annotations = useQuery({
    queryKey: ["annotations", id],
    queryFn: () => call(api.GET("/api/v1/transactions/{id}/annotations", { params: { path: { id } } })),
  });
  const comments = useQuery({
    queryKey: ["comments", id],
    queryFn: () => call(api.GET("/api/v1/transactions/{id}/comments", { params: { path: { id } } })),
  });
  const afterChange = (updated?: Transaction) => {
    if (updated) replaceInLists(qc, updated);
    void qc.invalidateQueries({ queryKey: ["annotations", id] });
    void qc.invalidateQueries({ queryKey: ["comments", id] });
    void qc.invalidateQueries({ queryKey: [COUNT_KEY] });
  };
  const [tag, setTag] = useState("");
  const addTag = useMutation({
    mutationFn: (slug: string) =>
      call(api.POST("/api/v1/transactions/{id}/tags", { params: { path: { id } }, body: { slug } })),
    onSuccess: (u) => {
      setTag("");
      afterChange(u);
      void qc.invalidateQueries({ queryKey: TAGS_KEY });
    },
  });
  const removeTag = useMutation({
    mutationFn: (slug: string) =>
      call(api.DELETE("/api/v1/transactions/{id}/tags/{slug}", { params: { path: { id, slug } } })),
    onSuccess: afterChange,
  });
  const [comment, setComment] = useState("");
  const addComment = useMutation({
    mutationFn: (body: string) =>
      call(api.POST("/api/v1/transactions/{id}/comments", { params: { path: { id } }, body: { body } })),
    onSuccess: () => {
      setComment("");
      afterChange();
    },
  });

  useEffect(() => heading.current?.focus(), [id]);
  // Escape closes the panel wherever focus is (a button that was disabled while saving drops focus to the page).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  const onTag = (e: FormEvent) => {
    e.preventDefault();
    if (tag.trim()) addTag.mutate(tag.trim());
  };
  const onComment = (e: FormEvent) => {
    e.preventDefault();
    if (comment.trim()) addComment.mutate(comment);
  };
  const tx = t.data;
  return (
    <aside
      className="panel"
      role="dialog"
      aria-modal="false"
      aria-labelledby="panel-title"
      onKeyDown={(e) => {
        // The grid's one-key shortcuts do not apply inside the panel (Escape still reaches the window).
        if (e.key !== "Escape") e.stopPropagation();
      }}
    >
      <div className="spread">
        <h2 id="panel-title" tabIndex={-1} ref={heading}>
          {tx ? tx.name : "Transaction"}
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {t.isPending ? <Loading what="the transaction" /> : null}
      <ErrorMessage error={t.error} />
      {tx ? (
        <dl className="facts">
          <dt>Date</dt>
          <dd>{tx.date}</dd>
          <dt>Amount</dt>
          <dd>
            {money(tx.amount, tx.iso_currency_code)} {(tx.amount ?? 0) > 0 ? "out" : "in"}
          </dd>
          <dt>Account</dt>
          <dd>
            {tx.account_name} ({tx.user_name})
          </dd>
          <dt>Bank text</dt>
          <dd>{tx.provider_name}</dd>
          <dt>Category</dt>
          <dd>
            {tx.category_display_name ?? "Uncategorized"}
            {tx.category_source ? <span className="muted"> · set by {tx.category_source}</span> : null}
          </dd>
          {tx.series_name ? (
            <>
              <dt>Series</dt>
              <dd>{tx.series_name}</dd>
            </>
          ) : null}
          {tx.pending ? (
            <>
              <dt>Status</dt>
              <dd>pending</dd>
            </>
          ) : null}
        </dl>
      ) : null}

      <section aria-labelledby="h-tags">
        <h3 id="h-tags">Tags</h3>
        <div className="tags">
          {tx?.tags.length ? null : <span className="muted">No tags.</span>}
          {tx?.tags.map((slug) => (
            <span key={slug} className="tag">
              {slug}
              <button type="button" aria-label={`Remove tag ${slug}`} onClick={() => removeTag.mutate(slug)}>
                ×
              </button>
            </span>
          ))}
        </div>
        <ErrorMessage error={removeTag.error} />
        <form className="row" onSubmit={onTag}>
          <label>
            Add a tag
            <input value={tag} onChange={(e) => setTag(e.target.value)} placeholder="tax_deductible" />
          </label>
          <button type="submit" disabled={addTag.isPending}>
            Add tag
          </button>
        </form>
        <ErrorMessage error={addTag.error} />
      </section>

      <section aria-labelledby="h-comments">
        <h3 id="h-comments">Comments</h3>
        <ErrorMessage error={comments.error} />
        <ul className="plain-list">
          {comments.data?.comments.map((c) => (
            <li key={c.id} className="comment">
              <p>{c.body}</p>
              <p className="muted">
                {c.author_name} · {when(c.created_at)}
              </p>
            </li>
          ))}
        </ul>
        <form onSubmit={onComment}>
          <label>
            Add a comment
            <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={3} />
          </label>
          <button type="submit" disabled={addComment.isPending}>
            Add comment
          </button>
        </form>
        <ErrorMessage error={addComment.error} />
      </section>

      <section aria-labelledby="h-timeline">
        <h3 id="h-timeline">Audit timeline</h3>
        {annotations.isPending ? <Loading what="the timeline" /> : null}
        <ErrorMessage error={annotations.error} />
        {annotations.data?.annotations.length === 0 ? <p className="muted">No changes yet.</p> : null}
        <ol className="timeline">
          {annotations.data?.annotations.map((a) => (
            <li key={a.id}>
              <div>{describe(a)}</div>
              <div className="muted">
                {a.actor_name || a.actor_type} · {when(a.created_at)}
              </div>
            </li>
          ))}
        </ol>
      </section>
    </aside>
  );
}
