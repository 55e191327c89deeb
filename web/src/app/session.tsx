import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, type ReactNode } from "react";
import { api, ApiError, call, setUnauthorizedHandler } from "./api";
import { ErrorMessage, Loading } from "./errors";
import { matchRoute, navigate, useLocation } from "./router";

import type { Session } from "../api/schemas";

/** GET /api/v1/auth/session: who is signed in, and with which scope. */
export type { Session };

const SessionContext = createContext<Session | null>(null);

export const SESSION_KEY = ["session"] as const;

/** The signed-in person. Only valid under <SessionGate> on a page that is not public. */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside a signed-in page");
  return s;
}

/** The signed-in person, or null on public pages (sign-in, setup). */
export function useOptionalSession(): Session | null {
  return useContext(SessionContext);
}

function loginUrl(): string {
  const here = window.location.pathname + window.location.search;
  return here === "/" ? "/login" : `/login?next=${encodeURIComponent(here)}`;
}

/**
 * Loads the session once and keeps it in the query cache. Pages that need a session send a person
 * without one to /login (with ?next= to come back); any API call answering 401 does the same.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const { pathname } = useLocation();
  const isPublic = matchRoute(pathname)?.route.public === true;
  const session = useQuery({
    queryKey: SESSION_KEY,
    queryFn: () => call(api.GET("/api/v1/auth/session", {})),
    retry: false,
    staleTime: 5 * 60_000,
  });
  const signedOut = session.error instanceof ApiError && session.error.status === 401;

  useEffect(() => {
    setUnauthorizedHandler(() => {
      queryClient.setQueryData(SESSION_KEY, null);
      if (!matchRoute(window.location.pathname)?.route.public) navigate(loginUrl(), { replace: true });
    });
    return () => setUnauthorizedHandler(null);
  }, [queryClient]);

  useEffect(() => {
    if (signedOut && !isPublic) navigate(loginUrl(), { replace: true });
  }, [signedOut, isPublic]);

  if (isPublic) return <SessionContext.Provider value={session.data ?? null}>{children}</SessionContext.Provider>;
  if (session.isPending) return <Loading what="your session" />;
  if (signedOut || !session.data) {
    return session.error && !signedOut ? (
      <main className="page">
        <ErrorMessage error={session.error} />
      </main>
    ) : (
      <Loading what="the sign-in page" />
    );
  }
  return <SessionContext.Provider value={session.data}>{children}</SessionContext.Provider>;
}

/** Ends the session and goes to the sign-in page. */
export async function signOut(queryClient: ReturnType<typeof useQueryClient>): Promise<void> {
  await call(api.POST("/api/v1/auth/logout", { body: {} }));
  queryClient.clear();
  navigate("/login", { replace: true });
}
