import { spawn } from "node:child_process";
import { join } from "node:path";

/**
 * `npm test` runs every test file; `npm test -- <files or globs>` runs those only, and options
 * for Node's test runner pass through (`npm test -- --test-name-pattern=refresh test/oauth*.ts`).
 * Each file runs in its own process, four at a time (TEST_CONCURRENCY changes it).
 */
const EVERY_TEST = [
  "src/**/*.test.ts",
  "scripts/**/*.test.ts",
  "packages/*/src/**/*.test.ts",
  "test/**/*.test.ts",
];
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY) || 4;
const args = process.argv.slice(2);
const options = args.filter((a) => a.startsWith("--"));
const files = args.filter((a) => !a.startsWith("--"));
const root = join(import.meta.dirname, "..");
const child = spawn(
  process.execPath,
  [
    "--test",
    // Four files at a time on two cores: most of a test file's time is waiting (on its database,
    // sockets, child processes and a browser); the whole suite needs about 400 s of CPU.
    `--test-concurrency=${CONCURRENCY}`,
    "--test-timeout=180000",
    ...options,
    ...(files.length ? files : EVERY_TEST),
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      // The test receivers' certificates are signed by the test CA.
      NODE_EXTRA_CA_CERTS: join(root, "test/fixtures/tls/ca.pem"),
      // Each file is a process that imports the application: V8's compiled code is kept between
      // them (as the start script does), about a second less per file.
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(root, "node_modules/.cache/node-compile"),
    },
  },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
