/**
 * The stack floor of a transaction page: the least a core can do and still
 * answer `ListTransactions` with the page the real core answers. Run by
 * run.ts (`npm run bench:transactions`) as a process of its own, with a REST
 * gateway in front of it, beside the real core and its gateway.
 *
 * It keeps what any core on this stack must pay for: fastify over h2c with
 * Connect's handler, one named prepared statement on a `pg` pool (the same
 * page SQL the core runs, built once), the core's own presenter
 * (transactionToProto) and a signed cursor. It leaves out everything else:
 * no authentication, no filters or other sorts, no request log, no
 * interceptors. run.ts checks that its JSON through the gateway is the real
 * one's, so the ratio core CPU / floor CPU is the core's own overhead per call.
 *
 *   STACK_FLOOR_PORT=… DATABASE_URL=… node --import tsx bench/transactions/stack-floor.ts
 */
import { createContextValues } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { fastify } from "fastify";
import pg from "pg";
import { SystemService } from "../../gen/coffer/v1/system_pb.js";
import { TransactionService } from "../../gen/coffer/v1/transactions_pb.js";
import { encodeCursor, filterHash } from "../../services/pagination/cursor.js";
import { transactionToProto } from "../../services/ledger/transactions/routes.js";
import { TRANSACTION_COLUMNS, viewSql, type TransactionView } from "../../services/db/queries/transaction-view.js";

const LIMIT_MAX = 500;
const cols = TRANSACTION_COLUMNS.map((c) => `r.${c}`).join(", ");

/** The first page of the date sort, newest first, as the core reads it (ids by an index-only scan, then rows). */
function pageStatement(fetch: number): pg.QueryConfig {
  const ids =
    "select t.id from transactions t where t.deleted_at is null " + `order by t.date desc, t.id desc limit ${fetch}`;
  const page = `select ${cols} from (${ids}) k join transactions r on r.id = k.id`;
  return {
    name: `stack-floor-${fetch}`,
    text: `with page as materialized (${page})
      select v.*, pg_current_snapshot()::text as snapshot
      from (${viewSql("select * from page")}) v order by v.date desc, v.id desc`,
  };
}

type Row = TransactionView & { snapshot: string };

async function main() {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  const [key] = (
    await pool.query<{ generation: string; secret: Buffer }>(
      `select generation::text, secret from cursor_keys order by generation desc limit 1`,
    )
  ).rows;
  if (!key) throw new Error("cursor_keys is empty: start the real core once first");
  const signing = { generation: Number(key.generation), secret: key.secret };
  // The core hashes the canonical filter of the request; an unfiltered date sort hashes the same every time.
  const hash = filterHash({ filter: {}, sort_by: "date", sort_order: "desc" });
  const statements = new Map<number, pg.QueryConfig>();

  const app = fastify({ http2: true, forceCloseConnections: true, logger: false });
  await app.register(fastifyConnectPlugin, {
    routes: (router) => {
      router.service(SystemService, {
        getVersion: () => ({}),
        getDatabaseStatus: () => ({}),
        checkReady: () => ({ status: "ok" }),
      });
      router.service(TransactionService, {
        async listTransactions(req) {
          const limit = Math.min(req.limit || 50, LIMIT_MAX);
          let statement = statements.get(limit + 1);
          if (!statement) statements.set(limit + 1, (statement = pageStatement(limit + 1)));
          const rows = (await pool.query<Row>(statement)).rows;
          const hasMore = rows.length > limit;
          const page = hasMore ? rows.slice(0, limit) : rows;
          const last = page[page.length - 1];
          const nextCursor = hasMore
            ? encodeCursor(
                { d: last.date, i: last.id, f: hash, w: rows[0].snapshot, t: Math.floor(Date.now() / 1000) },
                signing,
              )
            : "";
          return { transactions: page.map(transactionToProto), nextCursor, hasMore };
        },
      });
    },
    contextValues: () => createContextValues(),
  });
  await app.listen({ port: Number(process.env.STACK_FLOOR_PORT), host: "127.0.0.1" });
  const stop = () => void app.close().then(() => pool.end().then(() => process.exit(0)));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
