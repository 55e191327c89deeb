import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { when } from "../../app/format";
import { Link, navigate, useParams } from "../../app/router";
import type { Rule } from "../../api/schemas";
import { treeOf, type ConditionNode, type RuleAction } from "../../components/rules/grammar";
import { ActionsEditor } from "../../components/rules/actions-editor";
import { ConditionBuilder } from "../../components/rules/condition-builder";
import { RulePreview } from "../../components/rules/preview";
import { COUNT_KEY, LIST_KEY } from "../../components/transactions/query";

interface Draft {
  name: string;
  trigger: string;
  priority: string;
  enabled: boolean;
  conditions: ConditionNode;
  actions: RuleAction[];
}

const NEW_RULE: Draft = {
  name: "",
  trigger: "always",
  priority: "100",
  enabled: true,
  conditions: { and: [{ field: "provider_merchant_name", op: "contains", value: "" }] },
  actions: [{ type: "set_category", category_slug: "" }],
};

function draftOf(r: Rule): Draft {
  return {
    name: r.name,
    trigger: r.trigger,
    priority: String(r.priority),
    enabled: r.enabled,
    conditions: treeOf(r.conditions),
    actions: r.actions.map((a) => ({ ...a, type: String(a.type) })),
  };
}

/** Parses the raw JSON of a condition tree: the tree, or the parse error. */
function parseTree(text: string): { tree: ConditionNode } | { error: string } {
  try {
    const v: unknown = JSON.parse(text);
    if (!v || typeof v !== "object" || Array.isArray(v)) return { error: "The conditions must be a JSON object." };
    return { tree: v as ConditionNode };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

function RuleForm({ rule }: { rule: Rule | null }) {
  const qc = useQueryClient();
  const [draft, setDraft] = useState<Draft>(rule ? draftOf(rule) : NEW_RULE);
  const [mode, setMode] = useState<"builder" | "json">("builder");
  const [jsonText, setJsonText] = useState("");
  const parsed = mode === "json" ? parseTree(jsonText) : { tree: draft.conditions };
  const conditions = "tree" in parsed ? parsed.tree : null;

  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: draft.name,
        trigger: draft.trigger,
        priority: Number(draft.priority),
        enabled: draft.enabled,
        conditions: conditions ?? draft.conditions,
        actions: draft.actions,
      };
      return rule
        ? call(api.PATCH("/api/v1/rules/{id}", { params: { path: { id: rule.short_id } }, body }))
        : call(api.POST("/api/v1/rules", { body }));
    },
    onSuccess: (saved) => {
      qc.setQueryData(["rule", saved.short_id], saved);
      void qc.invalidateQueries({ queryKey: ["rules"] });
      if (!rule) navigate(`/rules/${saved.short_id}`, { replace: true });
    },
  });

  const [range, setRange] = useState({ start_date: "", end_date: "" });
  const apply = useMutation({
    mutationFn: (id: string) =>
      call(
        api.POST("/api/v1/rules/{id}/apply", {
          params: { path: { id } },
          body: {
            ...(range.start_date ? { start_date: range.start_date } : {}),
            ...(range.end_date ? { end_date: range.end_date } : {}),
          },
        }),
      ),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: [LIST_KEY] });
      void qc.invalidateQueries({ queryKey: [COUNT_KEY] });
      void qc.invalidateQueries({ queryKey: ["rules"] });
      void qc.invalidateQueries({ queryKey: ["rule"] });
    },
  });

  const [confirmDelete, setConfirmDelete] = useState(false);
  const remove = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/v1/rules/{id}", { params: { path: { id } } })),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["rules"] });
      navigate("/rules");
    },
  });

  const switchMode = (next: "builder" | "json") => {
    if (next === "json") setJsonText(JSON.stringify(draft.conditions, null, 2));
    else if (conditions) setDraft((d) => ({ ...d, conditions }));
    else return; // Stay in JSON mode until the JSON parses: nothing typed is lost.
    setMode(next);
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <div className="rule-editor">
      <form onSubmit={onSubmit} className="card" aria-label="Rule">
        <div className="row">
          <label className="grow">
            Rule name
            <input required value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
          </label>
          <label>
            Trigger
            <select value={draft.trigger} onChange={(e) => setDraft({ ...draft, trigger: e.target.value })}>
              <option value="always">new and changed transactions</option>
              <option value="on_create">new transactions</option>
              <option value="on_change">changed transactions</option>
            </select>
          </label>
          <label>
            Priority (lower runs first)
            <input
              type="number"
              step={1}
              value={draft.priority}
              onChange={(e) => setDraft({ ...draft, priority: e.target.value })}
            />
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={draft.enabled}
              onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
            />
            Enabled
          </label>
        </div>

        <fieldset>
          <legend>Conditions</legend>
          <div className="row" role="radiogroup" aria-label="Condition editor">
            <label className="inline">
              <input type="radio" checked={mode === "builder"} onChange={() => switchMode("builder")} />
              Builder
            </label>
            <label className="inline">
              <input type="radio" checked={mode === "json"} onChange={() => switchMode("json")} />
              Raw JSON
            </label>
          </div>
          {mode === "builder" ? (
            <ConditionBuilder value={draft.conditions} onChange={(c) => setDraft({ ...draft, conditions: c })} />
          ) : (
            <>
              <label>
                Conditions as JSON
                <textarea rows={12} value={jsonText} onChange={(e) => setJsonText(e.target.value)} spellCheck={false} />
              </label>
              {"error" in parsed ? (
                <p role="alert" className="error">
                  Not valid JSON: {parsed.error}
                </p>
              ) : null}
            </>
          )}
        </fieldset>

        <fieldset>
          <legend>Actions</legend>
          <ActionsEditor value={draft.actions} onChange={(a) => setDraft({ ...draft, actions: a })} />
        </fieldset>

        <div className="row form-actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : rule ? "Save rule" : "Create rule"}
          </button>
          <Link to="/rules">Back to rules</Link>
        </div>
        {save.isSuccess ? <p role="status">Saved.</p> : null}
        <ErrorMessage error={save.error} />
      </form>

      <RulePreview conditions={conditions} />

      {rule ? (
        <section className="card" aria-labelledby="h-apply">
          <h2 id="h-apply">Apply to stored transactions</h2>
          <p className="muted">
            Runs this rule (enabled or not) on the transactions already stored, optionally within dates. A category a
            person chose is kept. Save your changes first: the saved rule is what runs.
          </p>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              apply.mutate(rule.short_id);
            }}
          >
            <label>
              From (optional)
              <input
                type="date"
                value={range.start_date}
                onChange={(e) => setRange({ ...range, start_date: e.target.value })}
              />
            </label>
            <label>
              Until, not including (optional)
              <input
                type="date"
                value={range.end_date}
                onChange={(e) => setRange({ ...range, end_date: e.target.value })}
              />
            </label>
            <button type="submit" disabled={apply.isPending}>
              {apply.isPending ? "Applying…" : "Apply rule now"}
            </button>
          </form>
          {apply.data ? (
            <p role="status">
              Matched <strong>{apply.data.matched.toLocaleString()}</strong> transactions, changed{" "}
              <strong>{apply.data.changed.toLocaleString()}</strong>.
            </p>
          ) : null}
          <ErrorMessage error={apply.error} />
          <p className="muted">
            Hits: {rule.hit_count.toLocaleString()} · last hit {when(rule.last_hit_at)} · created by{" "}
            {rule.created_by_name} ({rule.created_by_type})
          </p>
        </section>
      ) : null}

      {rule ? (
        <section className="card" aria-labelledby="h-delete">
          <h2 id="h-delete">Delete</h2>
          {confirmDelete ? (
            <div className="row">
              <span>Delete the rule “{rule.name}”? Transactions it changed keep their changes.</span>
              <button type="button" className="danger" onClick={() => remove.mutate(rule.short_id)}>
                Delete rule
              </button>
              <button type="button" onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
            </div>
          ) : (
            <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
              Delete…
            </button>
          )}
          <ErrorMessage error={remove.error} />
        </section>
      ) : null}
    </div>
  );
}

/** /rules/new and /rules/:id: the rule editor with its live preview and retroactive apply. */
export default function RuleEditorPage() {
  const { id } = useParams();
  const q = useQuery({
    queryKey: ["rule", id],
    enabled: Boolean(id),
    queryFn: () => call(api.GET("/api/v1/rules/{id}", { params: { path: { id: id } } })),
  });
  if (!id) {
    return (
      <>
        <h1>New rule</h1>
        <RuleForm rule={null} />
      </>
    );
  }
  return (
    <>
      <h1>{q.data ? `Rule: ${q.data.name}` : "Rule"}</h1>
      {q.isPending ? <Loading what="the rule" /> : null}
      <ErrorMessage error={q.error} />
      {/* Keyed by the rule, so another rule's page starts from that rule's values. */}
      {q.data ? <RuleForm key={q.data.id} rule={q.data} /> : null}
    </>
  );
}
