import type { ConnectRouter } from "@connectrpc/connect";
import { SystemService } from "../../gen/coffer/v1/system_pb.js";
import { HealthCheckResponse_ServingStatus, Health } from "../../gen/grpc/health/v1/health_pb.js";
import { CONTRACT_VERSION } from "../../common/version.js";
import { emOf } from "../context.js";
import type { CoreDeps } from "../deps.js";
import { CofferError } from "../errors/coffer-error.js";
import type { Em } from "../db/orm.js";

async function databaseAnswers(em: Em): Promise<boolean> {
  try {
    await em.getConnection().execute("select 1");
    return true;
  } catch {
    return false;
  }
}

export function systemRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(SystemService, {
    getVersion: () => ({ version: deps.config.version, contractVersion: CONTRACT_VERSION }),
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
