import { ErrorMessage, Loading } from "../../app/errors";
import { Link } from "../../app/router";
import { HOW_TO_CONFIGURE, PROVIDER_TITLES, useProviders, type ProviderEntry } from "./common";
import "./forms.css";

const BLURB: Record<string, string> = {
  plaid: "Log in to your bank through Plaid Link. Thousands of US and Canadian banks.",
  teller: "Log in to your bank through Teller Connect. US banks, no screen scraping.",
  simplefin: "Paste a setup token from SimpleFIN Bridge (a paid service that reads your bank for you).",
  csv: "Upload an export from your bank's website and map its columns.",
};

/** Plaid and Teller pages load a vendor script the CSP allows only there: open them with a full page load. */
const NEEDS_FULL_LOAD = new Set(["plaid", "teller"]);

function ProviderCard({ p }: { p: ProviderEntry }) {
  const title = PROVIDER_TITLES[p.name] ?? p.name;
  const href = `/connect/${p.name}`;
  return (
    <li className="card">
      <h2>{title}</h2>
      <p>{BLURB[p.name] ?? p.capabilities.join(", ")}</p>
      {p.configured ? (
        NEEDS_FULL_LOAD.has(p.name) ? (
          <a className="button-link" href={href}>
            Connect with {title}
          </a>
        ) : (
          <Link className="button-link" to={href}>
            Connect with {title}
          </Link>
        )
      ) : (
        <p className="muted">
          <strong>Not configured on this server.</strong> {HOW_TO_CONFIGURE[p.name] ?? "See docs/providers.md."}
        </p>
      )}
    </li>
  );
}

/** /connect: one card per provider from GET /api/v1/providers. */
export default function ConnectPage() {
  const providers = useProviders();
  return (
    <section>
      <h1>Connect a bank</h1>
      <p className="muted">
        Pick how Coffer should read your bank. Connections you already have are on the{" "}
        <Link to="/connections">Connections</Link> page.
      </p>
      {providers.isPending ? <Loading what="providers" /> : null}
      <ErrorMessage error={providers.error} />
      {providers.data ? (
        <ul className="provider-list" aria-label="Providers">
          {providers.data.providers.map((p) => (
            <ProviderCard key={p.name} p={p} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
