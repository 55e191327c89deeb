import type { ConnectRouter } from "@connectrpc/connect";
import { SystemService } from "../../gen/coffer/v1/system_pb.js";
import { HealthCheckResponse_ServingStatus, Health } from "../../gen/grpc/health/v1/health_pb.js";
import { CONTRACT_VERSION } from "../../common/version.js";
import { emOf } from "../context.js";
import type { CoreDeps } from "../deps.js";
import { CofferError } from "../errors/coffer-error.js";
import type { Em } from "../db/orm.js";
import { migrationsList } from "../db/migrations/index.js";
import { appliedMigrations, pingDatabase, serverVersion } from "../db/tables/mikro-orm-migrations.js";
import { ts } from "../shared/proto.js";

async function databaseAnswers(em: Em): Promise<boolean> {
  try {
    await pingDatabase(em);
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL's version and the migrations the database records beside those this core knows. */
async function databaseStatus(em: Em) {
  const server_version = await serverVersion(em);
  const applied = await appliedMigrations(em);
  const done = new Set(applied.map((m) => m.name));
  return {
    serverVersion: server_version,
    // Raw rows may carry the timestamp as text, depending on the driver path.
    applied: applied.map((m) => ({ name: m.name, executedAt: ts(new Date(m.executed_at)) })),
    pending: migrationsList.map((m) => m.name).filter((n) => !done.has(n)),
    latestKnown: migrationsList[migrationsList.length - 1].name,
  };
}

export function systemRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(SystemService, {
    getVersion: () => ({ version: deps.config.version, contractVersion: CONTRACT_VERSION }),
    getDatabaseStatus: (_req, ctx) => databaseStatus(emOf(ctx)),
    async checkReady(_req, ctx) {
      if (!(await databaseAnswers(emOf(ctx)))) throw new CofferError("UNAVAILABLE", "The database is not reachable");
      return { status: "ok" };
    },
  });

  // The standard gRPC health service: "" (the server) and each Coffer service name.
  router.service(Health, {
    async check(req, ctx) {
      if (req.service && !deps.serviceNames.has(req.service)) {
        return { status: HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN };
      }
      const ok = await databaseAnswers(emOf(ctx));
      return { status: ok ? HealthCheckResponse_ServingStatus.SERVING : HealthCheckResponse_ServingStatus.NOT_SERVING };
    },
    async *watch(req, ctx) {
      // Report the status now, then every few seconds until the caller goes away.
      while (!ctx.signal.aborted) {
        const ok = await databaseAnswers(emOf(ctx));
        yield {
          status: ok ? HealthCheckResponse_ServingStatus.SERVING : HealthCheckResponse_ServingStatus.NOT_SERVING,
        };
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 5000);
          ctx.signal.addEventListener(
            "abort",
            () => {
              clearTimeout(t);
              resolve();
            },
            { once: true },
          );
        });
      }
    },
  });
}
