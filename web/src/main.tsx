import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiError } from "./app/api";
import { Layout } from "./app/layout";
import { RouterView } from "./app/router";
import { SessionGate } from "./app/session";
import "./app/styles.css";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // An answer the server refused (4xx) will be refused again: show it instead of retrying.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
      staleTime: 15_000,
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionGate>
        <Layout>
          <RouterView />
        </Layout>
      </SessionGate>
    </QueryClientProvider>
  </StrictMode>,
);
