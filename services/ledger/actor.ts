import type { Principal } from "../context.js";

/** Who made a change, as the audit trail and comments record it. */
export interface Actor {
  type: "user" | "agent" | "system";
  /** short_id of the API key, when a key made the change; of the household member, for a console session. */
  id: string | null;
  keyId: string | null;
  name: string;
}

export function actorOf(p: Principal): Actor {
  if (p.kind === "system") return { type: "system", id: null, keyId: null, name: p.name };
  // A person in the console: recorded as a user, by their household member's short id and name.
  if (p.kind === "session") return { type: "user", id: p.userShortId, keyId: null, name: p.userName };
  return { type: p.actorType, id: p.keyShortId, keyId: p.keyId, name: p.keyName };
}
