import { CofferError } from "../../errors/coffer-error.js";
import type { Provider, ProviderInfo, ProviderName, WebhookEvent } from "./provider.js";

/**
 * A provider this server has no settings for (no PLAID_CLIENT_ID, no
 * TELLER_APPLICATION_ID): it is still listed, with `configured: false` and its
 * credentials schema, so a person can see what the server would need. Every
 * call answers 400 PROVIDER_NOT_CONFIGURED, as does a webhook sent to it.
 */
export class UnconfiguredProvider implements Provider {
  readonly name: ProviderName;
  readonly verifyWebhook?: (headers: Record<string, string | undefined>, body: Buffer) => Promise<WebhookEvent>;

  constructor(
    private readonly entry: ProviderInfo,
    options: { webhooks: boolean },
  ) {
    this.name = entry.name;
    if (options.webhooks) this.verifyWebhook = () => this.refuse();
  }

  info(): ProviderInfo {
    return { ...this.entry, configured: false };
  }

  createLinkSession(): Promise<never> {
    return this.refuse();
  }

  enroll(): Promise<never> {
    return this.refuse();
  }

  accounts(): Promise<never> {
    return this.refuse();
  }

  // eslint-disable-next-line require-yield
  async *sync(): AsyncIterable<never> {
    await this.refuse();
  }

  remove(): Promise<never> {
    return this.refuse();
  }

  private async refuse(): Promise<never> {
    throw new CofferError(
      "PROVIDER_NOT_CONFIGURED",
      `Provider ${this.name} is not configured on this server (see the README's configuration table)`,
    );
  }
}
