import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { newShortId } from "../../services/ids/short-id.js";
import { CredentialCipher, CredentialsUnreadable } from "../../services/sync/credentials.js";
import { createTestDatabase } from "../helpers/db.js";
import { newUser } from "../helpers/ledger.js";
import { cofferEnv, freePort, killAll, runCoffer, spawnCoffer, type CofferProcess } from "../helpers/processes.js";
import { TEST_ENCRYPTION_KEY } from "../helpers/sync.js";
import { waitFor } from "../helpers/wait.js";

// `coffer encryption-key rotate` as an operator runs it: refused while a core runs on the database,
// then every stored credential re-sealed under the new key in one transaction; a row the current key
// cannot open stops it with nothing changed.

const NEW_KEY = "a1b2c3d4e5f60718".repeat(4);
let url: string;
let orm: Orm;
const procs: CofferProcess[] = [];
const em = () => orm.em.fork();
const oldCipher = new CredentialCipher(TEST_ENCRYPTION_KEY);

beforeAll(async () => {
  url = await createTestDatabase();
  orm = await openOrm(url, 2);
});
afterAll(async () => {
  await killAll(procs);
  if (orm) await closeOrm(orm);
});

/** A connection whose credentials are sealed with `cipher`; returns its id and short id. */
async function connection(userId: string, secret: string, cipher = oldCipher) {
  const id = crypto.randomUUID();
  const shortId = newShortId();
  await query(
    em(),
    `insert into connections (id, short_id, user_id, provider, provider_item_id, credentials)
     values (?, ?, ?, 'simplefin', ?, ?)`,
    [id, shortId, userId, `item-${id}`, cipher.seal(id, { access_url: secret })],
  );
  return { id, shortId };
}

const sealed = async () =>
  new Map(
    (await query<{ id: string; credentials: Buffer }>(em(), `select id, credentials from connections`)).map((r) => [
      r.id,
      r.credentials,
    ]),
  );

const rotate = (extra: Record<string, string> = {}) =>
  runCoffer(
    ["encryption-key", "rotate"],
    cofferEnv({ DATABASE_URL: url, COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, ...extra }),
  );

describe("coffer encryption-key rotate", () => {
  it("is refused while a core runs, then re-seals every credential under the new key", async () => {
    const ann = await newUser(em(), "Ann");
    const a = await connection(ann.id, "https://user:one@bridge.example/simplefin");
    const b = await connection(ann.id, "https://user:two@bridge.example/simplefin");

    const port = await freePort();
    const core = spawnCoffer(
      "core",
      ["core"],
      cofferEnv({
        DATABASE_URL: url,
        COFFER_CORE_PORT: String(port),
        COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        COFFER_LOG_LEVEL: "warn",
      }),
    );
    procs.push(core);
    const clients = coreClients(coreTransport(`http://127.0.0.1:${port}`, 5_000));
    await waitFor(
      () =>
        clients.system.checkReady({}).then(
          () => true,
          () => false,
        ),
      "the core to be ready",
      45_000,
    );
    const before = await sealed();
    const refused = await rotate({ COFFER_NEW_ENCRYPTION_KEY: NEW_KEY });
    expect(refused.code).toBe(2);
    expect((await rotate({ COFFER_NEW_ENCRYPTION_KEY: "not a key" })).stderr).toContain(
      "COFFER_NEW_ENCRYPTION_KEY must be 64 hex characters",
    );
    expect(refused.stderr).toMatch(/A core is running on this database; stop every core first/);
    expect(await sealed()).toEqual(before);

    core.child.kill("SIGTERM");
    expect((await core.exited).code).toBe(0);

    const done = await rotate({ COFFER_NEW_ENCRYPTION_KEY: NEW_KEY });
    expect(done.stderr).toContain("re-sealed 2 stored credentials under the new key");
    expect(done.code).toBe(0);
    // The key was the operator's to give, so it is not printed; nor is any credential.
    expect(done.stdout).toBe("");
    expect(done.stdout + done.stderr).not.toMatch(/bridge\.example|a1b2c3d4/);

    const newCipher = new CredentialCipher(NEW_KEY);
    const after = await sealed();
    expect(newCipher.open(a.id, after.get(a.id)!)).toEqual({ access_url: "https://user:one@bridge.example/simplefin" });
    expect(newCipher.open(b.id, after.get(b.id)!)).toEqual({ access_url: "https://user:two@bridge.example/simplefin" });
    expect(() => oldCipher.open(a.id, after.get(a.id)!)).toThrow(CredentialsUnreadable);

    // Rotating again from the new key, with no new key given: a random one, printed once on stdout.
    const again = await runCoffer(
      ["encryption-key", "rotate"],
      cofferEnv({ DATABASE_URL: url, COFFER_ENCRYPTION_KEY: NEW_KEY }),
    );
    expect(again.code).toBe(0);
    const printed = again.stdout.trim();
    expect(printed).toMatch(/^[0-9a-f]{64}$/);
    expect(again.stderr).toContain("set COFFER_ENCRYPTION_KEY to the key below on every core");
    const third = new CredentialCipher(printed);
    expect(third.open(a.id, (await sealed()).get(a.id)!)).toEqual({
      access_url: "https://user:one@bridge.example/simplefin",
    });
  }, 120_000);

  it("changes nothing when the current key cannot open one of the credentials", async () => {
    const bo = await newUser(em(), "Bo");
    const foreign = await connection(bo.id, "https://user:x@bridge.example/simplefin", new CredentialCipher(NEW_KEY));
    const before = await sealed();
    const r = await runCoffer(
      ["encryption-key", "rotate"],
      cofferEnv({ DATABASE_URL: url, COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`does not open the credentials of connection`);
    expect(r.stderr).toContain(foreign.shortId);
    expect(r.stdout).toBe("");
    expect(await sealed()).toEqual(before);
  });
});
