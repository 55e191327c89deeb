import { parseArgs } from "node:util";
import { EnvError, readEnv } from "../common/env.js";
import { CofferError } from "../services/errors/coffer-error.js";

// Each command imports only what it runs: loading the core, both gateways, the
// ORM and the MCP SDK for every command cost ~2.5 s per CLI call (`keys create`,
// `device approve`, `mcp --stdio`), against well under a second for one of them.
const lazy = {
  start: () => import("./start.js").then((m) => m.start),
  runCore: () => import("../services/main.js").then((m) => m.runCore),
  runRest: () => import("../gateways/rest/main.js").then((m) => m.runRest),
  runMcpHttp: () => import("../gateways/mcp/main.js").then((m) => m.runMcpHttp),
  runMcpStdio: () => import("../gateways/mcp/stdio.js").then((m) => m.runMcpStdio),
  withOrm: () => import("./with-orm.js").then((m) => m.withOrm),
  apiKeys: () => import("../services/auth/api-keys.js"),
  deviceCodes: () => import("../services/auth/device-codes.js"),
  logins: () => import("../services/auth/logins.js"),
  demo: () => import("./demo.js"),
  importCsv: () => import("./import-csv.js").then((m) => m.importCsv),
  encryptionKey: () => import("./encryption-key.js"),
};

const HELP = `coffer — self-hosted financial data for households and their AI agents

Usage: coffer <command> [options]

Commands:
  start                       apply migrations, run core + REST + MCP (embedded PostgreSQL unless DATABASE_URL is set)
  core                        run only the core (Connect, gRPC, gRPC-Web) on COFFER_CORE_PORT
  rest                        run only the REST gateway on COFFER_REST_PORT
  mcp                         run only the MCP gateway (Streamable HTTP) on COFFER_MCP_PORT
  mcp --stdio                 serve MCP on stdin/stdout with the key in COFFER_API_KEY
  migrate                     apply database migrations and exit
  keys create --name N --scope read_only|full_access [--user ID]
                              create an API key straight on the database; prints only the key
  users create-login --email E --role admin|editor|viewer [--user ID] [--name N]
                              a web-console login straight on the database (without --user, for a new
                              household member); prints only its one-time setup URL (valid 1 hour)
  device approve <user_code> [--scope read_only|full_access] [--name N]
  device deny <user_code>     decide a device-code login request
  demo                        load a demo household (2 people, 4 accounts, ~2,000 transactions
                              in USD and EUR); safe to rerun
  import csv FILE --account NAME [--currency CODE] [--user ID] [--date-format F]
             [--decimal-separator .|,] [--positive-is-debit] [--mapping date=Date,amount=Amount,...]
                              import a bank's CSV export into an account (created on first import)
                              straight on the database; importing the same rows again adds nothing
  encryption-key rotate       re-seal every stored provider credential under a new key in one transaction
                              (COFFER_NEW_ENCRYPTION_KEY, or a random one: printed, or on the embedded
                              database written to the data directory); stop every core first
  help                        this text

Environment: DATABASE_URL, COFFER_DATA_DIR, COFFER_CORE_PORT, COFFER_REST_PORT, COFFER_MCP_PORT,
COFFER_CORE_URL, COFFER_HOST, COFFER_PUBLIC_URL, COFFER_DEVICE_CODE_TTL_SECONDS, COFFER_API_KEY,
COFFER_EMBEDDED_PG_PORT, COFFER_LOG_LEVEL, COFFER_ENCRYPTION_KEY, COFFER_SYNC_INTERVAL,
COFFER_SYNC_LOG_RETENTION_DAYS, COFFER_TRUST_PROXY, PLAID_*, TELLER_*, SIMPLEFIN_* (see README.md).
`;

function fail(message: string): never {
  process.stderr.write(`coffer: ${message}\n`);
  process.exit(2);
}

async function keys(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { name: { type: "string" }, scope: { type: "string" }, user: { type: "string" } },
  });
  if (positionals[0] !== "create") fail("usage: coffer keys create --name N --scope read_only|full_access");
  if (!values.name || !values.scope) fail("keys create needs --name and --scope");
  const [withOrm, { createApiKey }] = await Promise.all([lazy.withOrm(), lazy.apiKeys()]);
  const plaintext = await withOrm(
    async (em) => (await createApiKey(em, { name: values.name!, scope: values.scope!, userId: values.user })).plaintext,
  );
  process.stdout.write(`${plaintext}\n`);
}

async function users(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      role: { type: "string" },
      user: { type: "string" },
      name: { type: "string" },
    },
  });
  const usage = "usage: coffer users create-login --email E --role admin|editor|viewer [--user ID] [--name N]";
  if (positionals[0] !== "create-login") fail(usage);
  if (!values.email || !values.role) fail(`users create-login needs --email and --role; ${usage}`);
  if (values.user && values.name) fail("--name names a new household member; leave it out with --user");
  const [withOrm, { createLoginForMember }] = await Promise.all([lazy.withOrm(), lazy.logins()]);
  const { publicUrl } = readEnv();
  const { setupUrl } = await withOrm((em) =>
    createLoginForMember(em, publicUrl, {
      email: values.email!,
      role: values.role!,
      userId: values.user,
      name: values.name,
    }),
  );
  process.stdout.write(`${setupUrl}\n`);
}

async function importCommand(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      account: { type: "string" },
      user: { type: "string" },
      currency: { type: "string" },
      "date-format": { type: "string" },
      "decimal-separator": { type: "string" },
      "positive-is-debit": { type: "boolean" },
      mapping: { type: "string" },
    },
  });
  const [kind, file] = positionals;
  if (kind !== "csv" || !file || !values.account)
    fail("usage: coffer import csv FILE --account NAME [--currency CODE]");
  const importCsv = await lazy.importCsv();
  const summary = await importCsv({
    file,
    account: values.account,
    user: values.user,
    currency: values.currency,
    dateFormat: values["date-format"],
    decimalSeparator: values["decimal-separator"],
    positiveIsDebit: values["positive-is-debit"],
    mapping: values.mapping,
  });
  process.stdout.write(`${summary}\n`);
}

async function encryptionKey(args: string[]) {
  if (args[0] !== "rotate" || args.length > 1) fail("usage: coffer encryption-key rotate");
  const { rotateEncryptionKey, RotationRefused } = await lazy.encryptionKey();
  const rotation = await rotateEncryptionKey(process.env).catch((e: unknown) => {
    // A refusal is the operator's to fix; its message names no secret.
    if (e instanceof RotationRefused) fail(e.message);
    throw e;
  });
  process.stderr.write(
    `re-sealed ${rotation.resealed} stored credential${rotation.resealed === 1 ? "" : "s"} under the new key; ` +
      (rotation.printedKey
        ? "set COFFER_ENCRYPTION_KEY to the key below on every core, then start them\n"
        : "start the cores with the new key\n"),
  );
  if (rotation.printedKey) process.stdout.write(`${rotation.printedKey}\n`);
}

async function device(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { name: { type: "string" }, scope: { type: "string" } },
  });
  const [action, userCode] = positionals;
  if (!userCode || (action !== "approve" && action !== "deny")) fail("usage: coffer device approve|deny <user_code>");
  const operator = { kind: "system" as const, name: "cli" };
  const [withOrm, { approveDeviceCode, denyDeviceCode }] = await Promise.all([lazy.withOrm(), lazy.deviceCodes()]);
  const decision = await withOrm((em) =>
    action === "approve"
      ? approveDeviceCode(em, operator, { userCode, scope: values.scope, name: values.name })
      : denyDeviceCode(em, operator, { userCode }),
  );
  process.stdout.write(
    decision.status === "approved"
      ? `approved ${decision.userCode}: the device receives a ${decision.scope} key ` +
          `named "${decision.name}" at its next poll\n`
      : `denied ${decision.userCode}\n`,
  );
}

export async function main(argv: string[]) {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "start":
        return await (
          await lazy.start()
        )(process.env);
      case "core":
        return void (await (
          await lazy.runCore()
        )(process.env));
      case "rest":
        return void (await (
          await lazy.runRest()
        )(process.env));
      case "mcp":
        return rest.includes("--stdio")
          ? await (
              await lazy.runMcpStdio()
            )(process.env)
          : void (await (
              await lazy.runMcpHttp()
            )(process.env));
      case "migrate":
        await (
          await lazy.withOrm()
        )(async () => undefined);
        process.stdout.write("migrations applied\n");
        return;
      case "keys":
        return await keys(rest);
      case "device":
        return await device(rest);
      case "users":
        return await users(rest);
      case "import":
        return await importCommand(rest);
      case "encryption-key":
        return await encryptionKey(rest);
      case "demo": {
        const [withOrm, { loadDemo, describeDemo }] = await Promise.all([lazy.withOrm(), lazy.demo()]);
        process.stdout.write(describeDemo(await withOrm((em) => loadDemo(em))));
        return;
      }
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(HELP);
        return;
      default:
        fail(`unknown command "${command}"; see coffer --help`);
    }
  } catch (e) {
    if (e instanceof CofferError) fail(`${e.code}: ${e.message}`);
    if (e instanceof EnvError) fail(e.message);
    throw e;
  }
}
