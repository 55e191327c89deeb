import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { ErrorMessage } from "./errors";
import { Link, matchRoute, routes, useLocation } from "./router";
import { signOut, useOptionalSession } from "./session";

/** The frame around every page: a skip link, the navigation (a menu button on phones), the signed-in person. */
export function Layout({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const session = useOptionalSession();
  const queryClient = useQueryClient();
  const [menuOpen, setMenuOpen] = useState(false);
  const [signOutError, setSignOutError] = useState<unknown>(null);
  const match = matchRoute(pathname);

  // The document title names the page, so history and screen readers do too.
  useEffect(() => {
    document.title = match ? `${match.route.title} · Coffer` : "Coffer";
    setMenuOpen(false);
  }, [match]);

  if (match?.route.public) return <main className="page page-narrow">{children}</main>;

  const active = (path: string) => (path === "/" ? pathname === "/" : pathname.startsWith(path));
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Coffer
        </Link>
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? "nav open" : "nav"}>
          <ul>
            {routes
              .filter((r) => r.nav)
              .map((r) => (
                <li key={r.path}>
                  <Link to={r.path} aria-current={active(r.path) ? "page" : undefined}>
                    {r.title}
                  </Link>
                </li>
              ))}
          </ul>
        </nav>
        {session ? (
          <div className="who">
            <span>
              {session.user_name} <span className="muted">({session.role})</span>
            </span>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setSignOutError(null);
                signOut(queryClient).catch(setSignOutError);
              }}
            >
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      <ErrorMessage error={signOutError} />
      <main id="main" className="page" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
