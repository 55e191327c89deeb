// The console's build: web/ is the root, web/dist the output the REST gateway serves at "/".
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The first load stays small: pages and the chart library are split into their own chunks.
    chunkSizeWarningLimit: 300,
    // No inline module-preload polyfill script: the CSP allows no inline script.
    modulePreload: { polyfill: false },
  },
  server: { proxy: { "/api": "http://127.0.0.1:8080", "/health": "http://127.0.0.1:8080" } },
});
