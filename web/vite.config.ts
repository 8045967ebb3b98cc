import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import ts from "typescript";
import { defineConfig, type Plugin } from "vite";

/**
 * Every page's path, read from the `definePage({ path: "…" })` calls of `src/pages/*.tsx` (the
 * same literals the router uses, lib/page.ts), without `*` (every other address).
 */
function readPagePaths(dir: string): string[] {
  const paths: string[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".tsx"))
    .sort()) {
    const file = join(dir, name);
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (
        ts.isCallExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === "definePage"
      ) {
        const [page] = node.arguments;
        const path =
          page && ts.isObjectLiteralExpression(page)
            ? page.properties.find(
                (p): p is ts.PropertyAssignment =>
                  ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === "path",
              )?.initializer
            : undefined;
        if (!path || !ts.isStringLiteralLike(path))
          throw new Error(`${file}: definePage needs its path as a string literal (the build reads it)`);
        if (path.text !== "*") paths.push(path.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return paths;
}

/** Writes `dist/pages.json`, the page paths: the server answers the dashboard on them (src/app.ts). */
function pagePaths(): Plugin {
  return {
    name: "page-paths",
    generateBundle() {
      const paths = readPagePaths(join(import.meta.dirname, "src", "pages"));
      this.emitFile({ type: "asset", fileName: "pages.json", source: `${JSON.stringify(paths, null, 2)}\n` });
    },
  };
}

/**
 * Writes a Brotli (`.br`, quality 11) and a gzip (`.gz`, level 9) copy beside each built file
 * worth it, once at build time: the server sends the one the browser accepts (@fastify/static's
 * `preCompressed`, src/app.ts) at no CPU cost per request. The bundle goes from about 630 to 170 kB.
 */
function precompress(): Plugin {
  const worthIt = /\.(js|css|html|json|svg)$/;
  return {
    name: "precompress",
    writeBundle(options, bundle) {
      const outDir = options.dir ?? "dist";
      for (const fileName of Object.keys(bundle)) {
        if (!worthIt.test(fileName)) continue;
        const path = join(outDir, fileName);
        const raw = readFileSync(path);
        if (raw.length < 1024) continue;
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(raw, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
            },
          }),
        );
        writeFileSync(`${path}.gz`, gzipSync(raw, { level: 9 }));
      }
    },
  };
}

/**
 * The dashboard is served by the service itself from web/dist (same origin, same session cookie,
 * strict CSP: no inline script or style). `npm run dev` serves it with hot reload and sends /api to
 * the service running on :3000 (`npm start` in another terminal).
 */
export default defineConfig({
  plugins: [react(), pagePaths(), precompress()],
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
