import type { CofferEnv } from "../../common/env.js";

/** The provider settings of the environment (common/env.ts reads and checks them). */
export type ProviderSettings = Pick<CofferEnv, "plaid" | "teller" | "simplefin"> & {
  providerRetry?: CofferEnv["providerRetry"];
};
import { CofferError } from "../errors/coffer-error.js";
import { CsvProvider } from "./providers/csv/provider.js";
import { PlaidProvider, plaidInfo } from "./providers/plaid/index.js";
import { PROVIDER_NAMES, type Provider, type ProviderName } from "./providers/provider.js";
import { SimplefinProvider } from "./providers/simplefin/index.js";
import { TellerProvider, tellerInfo } from "./providers/teller/index.js";
import { UnconfiguredProvider } from "./providers/unconfigured.js";
import { systemClock, type Clock } from "../clock.js";

/** The providers this core knows, by name. A provider without its server configuration reports `configured: false`. */
export class ProviderRegistry {
  private readonly byName: Map<string, Provider>;

  constructor(providers: Provider[]) {
    this.byName = new Map(providers.map((p) => [p.name, p]));
  }

  /** Every provider, in the order of PROVIDER_NAMES. */
  all(): Provider[] {
    return PROVIDER_NAMES.flatMap((n) => this.byName.get(n) ?? []);
  }

  /** The provider called `name`, or 404 NOT_FOUND naming the ones there are. */
  get(name: string): Provider {
    const p = this.byName.get(name);
    if (!p) {
      throw new CofferError(
        "NOT_FOUND",
        `Provider ${JSON.stringify(name.slice(0, 40))} not found; providers: ${this.all()
          .map((x) => x.name)
          .join(", ")}`,
      );
    }
    return p;
  }

  /** The provider, which must have its configuration: else 400 PROVIDER_NOT_CONFIGURED. */
  configured(name: string): Provider {
    const p = this.get(name);
    if (!p.info().configured) {
      throw new CofferError(
        "PROVIDER_NOT_CONFIGURED",
        `Provider ${name} is not configured on this server (see the README's configuration table)`,
      );
    }
    return p;
  }

  has(name: string): name is ProviderName {
    return this.byName.has(name);
  }
}

/**
 * The one place providers are built from the environment. Each client takes
 * its settings as constructor options (PLAID_*, TELLER_*, SIMPLEFIN_* are read
 * and checked in common/env.ts). A provider without its settings is listed as
 * not configured. SimpleFIN and CSV need none. A client added to Coffer is
 * added here.
 */
export function providersFromEnv(settings: ProviderSettings, clock: Clock = systemClock): ProviderRegistry {
  const { plaid, teller, simplefin } = settings;
  // Only syncs retry; a client built without the setting (tests of its failures) tries once.
  const retry = settings.providerRetry;
  return new ProviderRegistry([
    plaid
      ? new PlaidProvider({
          clientId: plaid.clientId,
          secret: plaid.secret,
          baseUrl: plaid.baseUrl,
          webhookUrl: plaid.webhookUrl,
          retry,
          clock,
        })
      : new UnconfiguredProvider(plaidInfo(false), { webhooks: true }),
    teller
      ? new TellerProvider({
          applicationId: teller.applicationId,
          baseUrl: teller.baseUrl,
          cert: teller.certificate ?? undefined,
          key: teller.privateKey ?? undefined,
          ca: teller.ca ?? undefined,
          webhookSecrets: teller.webhookSecrets,
          retry,
          clock,
        })
      : new UnconfiguredProvider(tellerInfo(false), { webhooks: true }),
    new SimplefinProvider({ timeoutMs: simplefin.timeoutSeconds * 1000, retry, clock }),
    new CsvProvider(),
  ]);
}
