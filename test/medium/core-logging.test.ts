import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { expectCoreError } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

// Every 500 the core answers is logged with its cause and the request id
// (the hardening issue found `internal` answers nobody could trace).

let s: Stack;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  s = await startStack({ logLevel: "info" }, { coreLog: { write: (l) => void lines.push(JSON.parse(l)) } });
});
afterAll(async () => {
  await s?.close();
});

describe("the core's log", () => {
  it("an unexpected failure: 500 INTERNAL_ERROR to the caller, the cause and request id in the log", async () => {
    // A table gone from under the running core: PostgreSQL 42P01, a failure no input explains.
    await query(s.orm.em.fork(), `alter table tags rename to tags_elsewhere`);
    try {
      const f = await expectCoreError(
        s.core.tags.listTags({}, { headers: { "x-api-key": s.adminKey, "x-request-id": "trace-me-500" } }),
        "INTERNAL_ERROR",
      );
      expect(f.message).toBe("Internal error");
    } finally {
      await query(s.orm.em.fork(), `alter table tags_elsewhere rename to tags`);
    }
    const line = lines.find((l) => l.msg === "unexpected error in RPC");
    expect(line).toMatchObject({ level: 50, service: "core", reqId: "trace-me-500", rpc: "ListTags" });
    const err = line!.err as { message: string; stack: string };
    expect(err.message).toMatch(/relation "tags" does not exist/);
    expect(err.stack).toMatch(/\n\s+at /);
    // The request's own line carries the same id, so the two can be joined.
    expect(lines.find((l) => l.msg === "request completed" && l.reqId === "trace-me-500")).toBeDefined();
  });

  it("a PostgreSQL error is logged with its SQLSTATE and message, never the statement's values", async () => {
    // A column gone from under the running core: the insert fails, and knex would put the statement,
    // with every value written into it, in front of PostgreSQL's message.
    await query(s.orm.em.fork(), `alter table tags rename column display_name to display_name_elsewhere`);
    try {
      await expectCoreError(
        s.core.tags.createTag(
          { slug: "secret_slug_4711", displayName: "Secret Display 4711" },
          { headers: { "x-api-key": s.adminKey, "x-request-id": "trace-me-sql" } },
        ),
        "INTERNAL_ERROR",
      );
    } finally {
      await query(s.orm.em.fork(), `alter table tags rename column display_name_elsewhere to display_name`);
    }
    const line = lines.find((l) => l.msg === "unexpected error in RPC" && l.reqId === "trace-me-sql");
    expect(line).toBeDefined();
    const err = line!.err as { message: string; code: string; stack: string };
    expect(err.code).toBe("42703");
    expect(err.message).toMatch(/column "display_name" of relation "tags" does not exist/);
    expect(err.stack).toMatch(/\n\s+at /);
    const logged = JSON.stringify(lines.filter((l) => l.reqId === "trace-me-sql"));
    expect(logged).not.toContain("4711");
    expect(logged).not.toMatch(/insert into/i);
  });
});
