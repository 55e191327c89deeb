import type { RuleAction } from "./grammar";
import { CategorySelect, useTags } from "../taxonomy";
import { ACTIONS } from "./grammar";

/** The list of a rule's actions: each a type and the fields that type takes. */
export function ActionsEditor({ value, onChange }: { value: RuleAction[]; onChange: (a: RuleAction[]) => void }) {
  const tags = useTags();
  const set = (i: number, a: RuleAction) => onChange(value.map((x, j) => (j === i ? a : x)));
  return (
    <div>
      <datalist id="tag-slugs">
        {tags.data?.map((t) => (
          <option key={t.slug} value={t.slug} />
        ))}
      </datalist>
      {value.map((action, i) => {
        const spec = ACTIONS.find((a) => a.type === action.type);
        return (
          <div key={i} className="condition-leaf" role="group" aria-label={`Action ${i + 1}`}>
            <label>
              Action
              <select value={action.type} onChange={(e) => set(i, { type: e.target.value })}>
                {ACTIONS.map((a) => (
                  <option key={a.type} value={a.type}>
                    {a.label}
                  </option>
                ))}
              </select>
            </label>
            {spec?.fields.map((f) =>
              f.boolean ? (
                <label key={f.name} className="inline">
                  <input
                    type="checkbox"
                    checked={action[f.name] === true}
                    onChange={(e) => {
                      const next: RuleAction = { ...action, [f.name]: e.target.checked };
                      if (!e.target.checked) delete next[f.name];
                      set(i, next);
                    }}
                  />
                  {f.label}
                </label>
              ) : f.name === "category_slug" ? (
                <CategorySelect
                  key={f.name}
                  label={f.label}
                  emptyLabel="Choose a category"
                  value={typeof action.category_slug === "string" ? action.category_slug : ""}
                  onChange={(slug) => set(i, { ...action, category_slug: slug })}
                />
              ) : (
                <label key={f.name}>
                  {f.label}
                  {f.optional ? " (optional)" : ""}
                  <input
                    list={f.name === "tag_slug" ? "tag-slugs" : undefined}
                    value={action[f.name] === undefined ? "" : String(action[f.name])}
                    onChange={(e) => {
                      const next: RuleAction = { ...action, [f.name]: e.target.value };
                      if (f.optional && !e.target.value) delete next[f.name];
                      set(i, next);
                    }}
                  />
                </label>
              ),
            )}
            <button
              type="button"
              className="danger"
              onClick={() => onChange(value.filter((_, j) => j !== i))}
              aria-label={`Remove action ${i + 1}`}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...value, { type: "add_tag", tag_slug: "" }])}>
        Add action
      </button>
    </div>
  );
}
