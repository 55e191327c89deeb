import type { LoginRole } from "../../auth/roles.js";
import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** Marks every unused setup token of a login as used. */
export async function consumeSetupTokensOf(em: Em, loginId: string): Promise<void> {
  await query(em, `update login_setup_tokens set consumed_at = now() where login_id = ? and consumed_at is null`, [
    loginId,
  ]);
}

/** A setup token that expires `ttlSeconds` after `now` (the core's clock). */
export async function insertSetupToken(
  em: Em,
  t: { id: string; loginId: string | null; tokenHash: string; ttlSeconds: number; now: Date },
): Promise<void> {
  await query(
    em,
    `insert into login_setup_tokens (id, login_id, token_hash, expires_at)
     values (?, ?, ?, ?::timestamptz + make_interval(secs => ?))`,
    [t.id, t.loginId, t.tokenHash, t.now, t.ttlSeconds],
  );
}

export interface LiveSetupTokenRow {
  id: string;
  login_id: string | null;
  email: string | null;
  role: LoginRole | null;
}

/**
 * The setup token with this hash that is unused and unexpired at `now` (the core's clock), with its login's
 * email and role; `lock` takes it `for update`.
 */
export async function liveSetupTokenByHash(
  em: Em,
  tokenHash: string,
  now: Date,
  lock: boolean,
): Promise<LiveSetupTokenRow | undefined> {
  const lockClause = lock ? " for update of t" : "";
  const [row] = await query<LiveSetupTokenRow>(
    em,
    `select t.id, t.login_id, l.email, l.role from login_setup_tokens t left join logins l on l.id = t.login_id
     where t.token_hash = ? and t.consumed_at is null and t.expires_at > ?::timestamptz${lockClause}`,
    [tokenHash, now],
  );
  return row;
}

export async function consumeSetupToken(em: Em, id: string): Promise<void> {
  await query(em, `update login_setup_tokens set consumed_at = now() where id = ?`, [id]);
}
