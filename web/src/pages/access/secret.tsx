import { useState } from "react";

/** A secret shown once (a key, a setup link), with a copy button; a failed copy leaves it selectable. */
export function ShownOnce({ label, value, note }: { label: string; value: string; note: string }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const copy = () => {
    navigator.clipboard.writeText(value).then(
      () => setCopied("yes"),
      () => setCopied("failed"),
    );
  };
  return (
    <div className="stack" role="status">
      <p>
        <strong>{label}</strong> {note}
      </p>
      <div className="secret">
        <code aria-label={label}>{value}</code>
        <button type="button" onClick={copy}>
          Copy
        </button>
        {copied === "yes" ? <span>Copied.</span> : null}
        {copied === "failed" ? <span>Copying is blocked here: select the text and copy it.</span> : null}
      </div>
    </div>
  );
}
