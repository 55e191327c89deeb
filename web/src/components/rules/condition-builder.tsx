import type { ConditionLeaf, ConditionNode } from "./grammar";
import {
  FIELDS,
  isAnd,
  isLeaf,
  isNot,
  isOr,
  kindOf,
  newLeaf,
  numberValue,
  OP_LABELS,
  OPERATORS,
  reshape,
} from "./grammar";

type Change = (next: ConditionNode) => void;

/** Text of a value for an input: lists as comma-separated text. */
function text(v: unknown): string {
  if (Array.isArray(v)) return v.map((x) => text(x)).join(", ");
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v);
  return v === undefined || v === null ? "" : JSON.stringify(v);
}

function LeafEditor({ leaf, onChange, path }: { leaf: ConditionLeaf; onChange: Change; path: string }) {
  const kind = kindOf(leaf.field);
  const fieldChoice = kind === "metadata" ? "metadata." : leaf.field;
  const valueInput = (key: "value" | "min" | "max" | "tolerance", label: string) => (
    <label>
      {label}
      <input
        value={text(leaf[key])}
        inputMode={kind === "number" || key !== "value" ? "decimal" : undefined}
        onChange={(e) => {
          const raw = e.target.value;
          const v =
            leaf.op === "in" && key === "value"
              ? raw.split(",").map((s) => s.trim())
              : kind === "number" || key !== "value" || ["gt", "gte", "lt", "lte", "approx"].includes(leaf.op)
                ? numberValue(leaf.field, raw)
                : raw;
          onChange({ ...leaf, [key]: v });
        }}
      />
    </label>
  );
  return (
    <div className="condition-leaf" role="group" aria-label={`Condition ${path}`}>
      <label>
        Field
        <select
          value={fieldChoice}
          onChange={(e) =>
            onChange(reshape(leaf, e.target.value === "metadata." ? "metadata.key" : e.target.value, leaf.op))
          }
        >
          {FIELDS.map((f) => (
            <option key={f.name} value={f.name}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
      {kind === "metadata" ? (
        <label>
          Metadata key
          <input
            value={leaf.field.slice("metadata.".length)}
            onChange={(e) => onChange({ ...leaf, field: `metadata.${e.target.value}` })}
          />
        </label>
      ) : null}
      <label>
        Operator
        <select value={leaf.op} onChange={(e) => onChange(reshape(leaf, leaf.field, e.target.value))}>
          {OPERATORS[kind].map((op) => (
            <option key={op} value={op}>
              {OP_LABELS[op] ?? op}
            </option>
          ))}
        </select>
      </label>
      {leaf.op === "exists" || leaf.op === "not_exists" ? null : leaf.op === "between" ? (
        <>
          {valueInput("min", "From")}
          {valueInput("max", "To")}
        </>
      ) : kind === "boolean" ? (
        <label>
          Value
          <select value={String(leaf.value)} onChange={(e) => onChange({ ...leaf, value: e.target.value === "true" })}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        </label>
      ) : (
        <>
          {valueInput("value", leaf.op === "in" ? "Values (comma-separated)" : "Value")}
          {leaf.op === "approx" ? valueInput("tolerance", "Tolerance") : null}
        </>
      )}
    </div>
  );
}

/**
 * One node of the condition tree: an and/or group (switchable, with children to add, wrap in NOT,
 * or remove), a NOT around a node, or a leaf. Edits return a new tree; nothing is mutated.
 */
export function NodeEditor({
  node,
  onChange,
  onRemove,
  path,
}: {
  node: ConditionNode;
  onChange: Change;
  onRemove?: () => void;
  path: string;
}) {
  const remove = onRemove ? (
    <button type="button" className="danger" onClick={onRemove} aria-label={`Remove ${path}`}>
      Remove
    </button>
  ) : null;
  const wrapNot = (
    <button type="button" onClick={() => onChange({ not: node })} aria-label={`Negate ${path}`}>
      NOT
    </button>
  );
  if (isLeaf(node)) {
    return (
      <div className="condition-node">
        <LeafEditor leaf={node} onChange={onChange} path={path} />
        <div className="row">
          {wrapNot}
          {remove}
        </div>
      </div>
    );
  }
  if (isNot(node)) {
    return (
      <div className="condition-group" role="group" aria-label={`NOT ${path}`}>
        <div className="spread">
          <strong>NOT</strong>
          <div className="row">
            <button type="button" onClick={() => onChange(node.not)} aria-label={`Remove NOT at ${path}`}>
              Drop NOT
            </button>
            {remove}
          </div>
        </div>
        <NodeEditor node={node.not} onChange={(n) => onChange({ not: n })} path={`${path}.not`} />
      </div>
    );
  }
  if (isAnd(node) || isOr(node)) {
    const op = isAnd(node) ? "and" : "or";
    const children = isAnd(node) ? node.and : node.or;
    const set = (list: ConditionNode[]) => onChange(op === "and" ? { and: list } : { or: list });
    return (
      <div className="condition-group" role="group" aria-label={`Group ${path}`}>
        <div className="spread">
          <label className="inline">
            Match
            <select
              value={op}
              onChange={(e) => onChange(e.target.value === "and" ? { and: children } : { or: children })}
            >
              <option value="and">all of (AND)</option>
              <option value="or">any of (OR)</option>
            </select>
          </label>
          <div className="row">
            {wrapNot}
            {remove}
          </div>
        </div>
        {children.map((child, i) => (
          <NodeEditor
            key={i}
            node={child}
            path={`${path}.${op}[${i}]`}
            onChange={(n) => set(children.map((c, j) => (j === i ? n : c)))}
            // A group needs at least one condition: removing its last child removes the group.
            onRemove={() => (children.length > 1 ? set(children.filter((_, j) => j !== i)) : onRemove?.())}
          />
        ))}
        <div className="row">
          <button type="button" onClick={() => set([...children, newLeaf()])}>
            Add condition
          </button>
          <button type="button" onClick={() => set([...children, { or: [newLeaf()] }])}>
            Add group
          </button>
        </div>
      </div>
    );
  }
  return null;
}

/** The whole tree: `{}` (every transaction) or a node. */
export function ConditionBuilder({ value, onChange }: { value: ConditionNode; onChange: Change }) {
  if (Object.keys(value).length === 0) {
    return (
      <div className="condition-group">
        <p>No conditions: the rule matches every transaction.</p>
        <button type="button" onClick={() => onChange({ and: [newLeaf()] })}>
          Add condition
        </button>
      </div>
    );
  }
  return <NodeEditor node={value} onChange={onChange} onRemove={() => onChange({})} path="conditions" />;
}
