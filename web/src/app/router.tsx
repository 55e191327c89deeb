import {
  lazy,
  Suspense,
  useCallback,
  useMemo,
  useSyncExternalStore,
  type AnchorHTMLAttributes,
  type ComponentType,
  type LazyExoticComponent,
  type MouseEvent,
} from "react";
import { Loading } from "./errors";

/**
 * A small history-based router: a table of paths (":name" segments become params), links that push
 * history entries, and a hook that re-renders on navigation. No router library is installed.
 */
export interface RouteDef {
  path: string;
  title: string;
  component: LazyExoticComponent<ComponentType>;
  /** Shown to people who are not signed in (sign-in, setup). */
  public?: boolean;
  /** Listed in the navigation. */
  nav?: boolean;
}

// Each page is its own chunk, loaded when first visited: the first load stays small.
export const routes: RouteDef[] = [
  { path: "/", title: "Home", nav: true, component: lazy(() => import("../pages/home/home")) },
  {
    path: "/transactions",
    title: "Transactions",
    nav: true,
    component: lazy(() => import("../pages/transactions/transactions-page")),
  },
  { path: "/review", title: "Review", nav: true, component: lazy(() => import("../pages/review/review-page")) },
  { path: "/rules", title: "Rules", nav: true, component: lazy(() => import("../pages/rules/rules-page")) },
  { path: "/rules/new", title: "New rule", component: lazy(() => import("../pages/rules/rule-editor-page")) },
  { path: "/rules/:id", title: "Rule", component: lazy(() => import("../pages/rules/rule-editor-page")) },
  {
    path: "/categories",
    title: "Categories & tags",
    nav: true,
    component: lazy(() => import("../pages/categories/categories-page")),
  },
  {
    path: "/connections",
    title: "Connections",
    nav: true,
    component: lazy(() => import("../pages/connections/connections-page")),
  },
  { path: "/connect", title: "Connect a bank", component: lazy(() => import("../pages/connect/connect-page")) },
  { path: "/connect/plaid", title: "Connect with Plaid", component: lazy(() => import("../pages/connect/plaid-page")) },
  {
    path: "/connect/teller",
    title: "Connect with Teller",
    component: lazy(() => import("../pages/connect/teller-page")),
  },
  {
    path: "/connect/simplefin",
    title: "Connect with SimpleFIN",
    component: lazy(() => import("../pages/connect/simplefin-page")),
  },
  { path: "/connect/csv", title: "Import a CSV file", component: lazy(() => import("../pages/connect/csv-page")) },
  { path: "/access", title: "Access", nav: true, component: lazy(() => import("../pages/access/access-page")) },
  { path: "/device", title: "Device approval", component: lazy(() => import("../pages/access/device-page")) },
  { path: "/login", title: "Sign in", public: true, component: lazy(() => import("../pages/login/login-page")) },
  {
    path: "/setup",
    title: "Set your password",
    public: true,
    component: lazy(() => import("../pages/setup/setup-page")),
  },
  {
    path: "/settings",
    title: "Settings",
    nav: true,
    component: lazy(() => import("../pages/settings/settings-page")),
  },
];

const NAVIGATE_EVENT = "coffer:navigate";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("popstate", onChange);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

/** Goes to a URL of the console (path and query), adding a history entry unless `replace`. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (opts.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
  window.scrollTo(0, 0);
}

/** The current path and query; re-renders on every navigation. */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot);
  return useMemo(() => {
    const url = new URL(current, window.location.origin);
    return { pathname: url.pathname, search: url.searchParams };
  }, [current]);
}

/** The query string as state: reading it, and replacing some of its values (empty values are dropped). */
export function useSearchParams(): [URLSearchParams, (changes: Record<string, string | null>) => void] {
  const { pathname, search } = useLocation();
  const update = useCallback(
    (changes: Record<string, string | null>) => {
      const next = new URLSearchParams(search);
      for (const [k, v] of Object.entries(changes)) {
        if (v === null || v === "") next.delete(k);
        else next.set(k, v);
      }
      const q = next.toString();
      navigate(pathname + (q ? `?${q}` : ""), { replace: true });
    },
    [pathname, search],
  );
  return [search, update];
}

/** Matches a path against the table: the route and its params, or null. */
export function matchRoute(pathname: string): { route: RouteDef; params: Record<string, string> } | null {
  const parts = pathname.replace(/\/+$/, "").split("/").filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split("/").filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((seg, i) => {
      if (seg.startsWith(":")) {
        params[seg.slice(1)] = decodeURIComponent(parts[i]);
        return true;
      }
      return seg === parts[i];
    });
    if (ok) return { route, params };
  }
  return null;
}

/** The params of the current route (":id" → params.id). */
export function useParams(): Record<string, string> {
  const { pathname } = useLocation();
  return matchRoute(pathname)?.params ?? {};
}

/** A link inside the console: a real <a href> (open in new tab works), navigated without a reload. */
export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}

/** Renders the page for the current URL, or a not-found page. */
export function RouterView() {
  const { pathname } = useLocation();
  const match = matchRoute(pathname);
  if (!match) {
    return (
      <section>
        <h1>Page not found</h1>
        <p>
          Nothing lives at <code>{pathname}</code>. <Link to="/">Go home</Link>.
        </p>
      </section>
    );
  }
  const Page = match.route.component;
  return (
    <Suspense fallback={<Loading what="the page" />}>
      <Page />
    </Suspense>
  );
}
