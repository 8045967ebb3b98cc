import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The dashboard is served by the service itself from web/dist (same origin, same session cookie,
 * strict CSP: no inline script or style). `npm run dev` serves it with hot reload and sends /api to
 * the service running on :3000 (`npm start` in another terminal).
 */
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    // The CSP forbids inline scripts; Vite's module preload polyfill would add one.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 600,
  },
  server: {
    port: 5173,
    proxy: { "/api": process.env.API_ORIGIN ?? "http://localhost:3000" },
    // The contract module lives beside the server's code, one level up.
    fs: { allow: [".."] },
  },
});
