import type { Principal } from "../context.js";

/** Who made a change, as the audit trail and comments record it. */
export interface Actor {
  type: "user" | "agent" | "system";
  /** short_id of the API key, when a key made the change. */
  id: string | null;
  keyId: string | null;
  name: string;
}

export function actorOf(p: Principal): Actor {
  if (p.kind === "system") return { type: "system", id: null, keyId: null, name: p.name };
  return { type: p.actorType, id: p.keyShortId, keyId: p.keyId, name: p.keyName };
}
