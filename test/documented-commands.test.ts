import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { verifyWebhook } from "@merchant-platform/sdk";
import pino from "pino";
import { SCOPES } from "../examples/sample-app/src/app.ts";
import { listenForEvents } from "../src/modules/webhooks/delivery/notifications.ts";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import { createTestContext, type KeyScope, ok, type TestContext } from "./harness.ts";

/**
 * The commands the README, docs/app-developers.md and packages/cli/README.md show in their ```sh
 * blocks, run as written through /bin/sh (placeholders replaced by real values, one concrete form
 * of `[optional]` parts) against a platform on a real port, or listed in NOT_RUN with the reason.
 * A command added to the docs that is in neither fails the first test, so this cannot go stale.
 */

const ROOT = join(import.meta.dirname, "..");
const DOCS = ["README.md", "docs/app-developers.md", "packages/cli/README.md"];

/** Documented commands this file does not run, and why (each must still be documented). */
const NOT_RUN: Record<string, string> = {
  "npm install && npm start": "what CI itself does (install), then a long-running server",
  "npm test": "the suite this file is part of",
  "npm install": "what CI itself does before any test",
  "npm start": "a long-running server; the tests start the same app (buildApp) on a real port",
  "npm run dev": "a long-running Vite dev server",
  "npm run migrate":
    "needs the DATABASE_URL of the block above (a production database); every test context migrates",
  "RUN_MODE=api npm start": "a long-running server; test/scale-out.test.ts runs API processes",
  "RUN_MODE=worker METRICS_PORT=9465 npm start":
    "a long-running worker; test/scale-out.test.ts runs worker processes",
  "CLIENT_ID=mpc_… CLIENT_SECRET=mpcs_… npm start --workspace @merchant-platform/sample-app":
    "a long-running sample app; test/developer-kit.test.ts runs the same app (createSampleApp)",
  "npm run platform -- listen --forward-to http://localhost:8080/webhooks":
    "long-running (until Ctrl-C); test/developer-kit.test.ts runs listen against the sample app",
  "npm run platform -- listen --forward-to http://localhost:8080/webhooks [--events order.created,order.paid]":
    "long-running (until Ctrl-C); test/developer-kit.test.ts runs listen against the sample app",
};

/** Documented commands this file runs (each test below runs one and marks it run). */
const RUN = [
  'npm run platform -- login --base-url http://localhost:3000 --token-command "curl -s localhost:8080/dev/token"',
  "npm run platform -- trigger order.created",
  "npm run platform -- deliveries [--failed] [--event order.created] [--limit 20] [--session whls_…]",
  "npm run platform -- redeliver whd_…",
  "npm run platform -- events [--types order.created] [--failed] [--limit 100] [--after <cursor>] [--follow] [--json]",
  "npm run platform -- webhooks",
  "npm run platform -- rotate-secret whsub_…",
  "npm run platform -- recover whsub_… --since 2h [--until 2026-11-26T10:00:00Z]",
  "npm run platform -- enable whsub_… [--recover-since 3d]",
  "npm run platform -- check-privacy https://app.example.com/privacy --secret whsec_…",
  "npm run -s platform -- export orders > orders.jsonl",
  "npm run -s platform -- export orders --updated-since 2026-11-26T10:00:00Z > recent-orders.jsonl",
  "MP_API_KEY=mpk_… MP_API_SECRET=mpsk_… npm run -s platform -- export customers > customers.jsonl",
  "npm run -s platform -- export products|orders|customers [--updated-since 2h] > products.jsonl",
] as const;
type Documented = (typeof RUN)[number];

interface DocCommand {
  file: string;
  line: number;
  text: string;
}

/** The npm/npx command lines of the ```sh blocks (continuations joined, trailing comments cut). */
function documentedCommands(): DocCommand[] {
  const found: DocCommand[] = [];
  for (const file of DOCS) {
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
    let inSh = false;
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i]!.trim();
      if (!inSh) {
        inSh = /^```(sh|shell|bash)\s*$/.test(raw);
        continue;
      }
      if (raw.startsWith("```")) {
        inSh = false;
        continue;
      }
      const start = i + 1;
      let command = raw;
      while (command.endsWith("\\") && i + 1 < lines.length)
        command = `${command.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
      command = command.replace(/\s+#\s.*$/, "").trim();
      if (/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:npm|npx)\s/.test(command))
        found.push({ file, line: start, text: command });
    }
  }
  return found;
}

/** The CLI's subcommands and the flags each one's --help entry names (from `--help` itself). */
function cliHelp(): { commands: Map<string, Set<string>>; common: Set<string> } {
  const help = execFileSync(process.execPath, [join(ROOT, "packages/cli/dist/cli.js"), "--help"], {
    encoding: "utf8",
  });
  const flagsOf = (s: string) => new Set(s.match(/--[a-z][a-z-]*/g) ?? []);
  const match = /Commands:\n([\s\S]*?)\n\n(Options for every command:[\s\S]*?)\n\n?/.exec(`${help}\n`);
  assert.ok(match, `--help has its Commands and Options sections:\n${help}`);
  const [, listing = "", common = ""] = match;
  const commands = new Map<string, Set<string>>();
  let current = "";
  for (const line of listing.split("\n")) {
    const entry = /^ {2}([a-z][a-z-]*)(?=\s|$)/.exec(line);
    if (entry) {
      current = entry[1]!;
      commands.set(current, new Set());
    }
    if (current) for (const f of flagsOf(line)) commands.get(current)!.add(f);
  }
  return { commands, common: new Set([...flagsOf(common), "--help"]) };
}

/** The package.json whose scripts an `npm …` command runs (the root, or its --workspace's). */
function scriptsFor(args: string[]): Record<string, string> {
  const w = args.indexOf("--workspace");
  if (w < 0) return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
  const name = args[w + 1];
  const dirs = [join(ROOT, "web")];
  for (const parent of ["packages", "examples"])
    for (const d of readdirSync(join(ROOT, parent))) dirs.push(join(ROOT, parent, d));
  for (const dir of dirs) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    if (pkg.name === name) return pkg.scripts ?? {};
  }
  throw new Error(`no workspace named ${name}`);
}

/** Checks one documented command: its npm script exists; a `platform` subcommand and flags exist. */
function checkDocumented(cmd: DocCommand, help: ReturnType<typeof cliHelp>) {
  const where = `${cmd.file}:${cmd.line}: ${cmd.text}`;
  for (const part of cmd.text.split("&&").map((p) => p.trim())) {
    const words = part.split(/\s+/).filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
    assert.equal(words[0], "npm", where);
    const verb = words[1]!;
    if (verb === "install" || verb === "ci") continue;
    let rest = words.slice(2);
    let script = verb;
    if (verb === "run") {
      rest = rest.filter((w) => w !== "-s" && w !== "--silent");
      script = rest.shift()!;
    }
    assert.ok(script in scriptsFor(words), `${where}: no "${script}" script in its package.json`);
    if (script !== "platform") continue;
    const cli = rest.slice(rest.indexOf("--") + 1);
    const sub = cli[0]!;
    const flags = help.commands.get(sub);
    assert.ok(flags, `${where}: "${sub}" is not a command the CLI's --help lists`);
    for (const flag of part.match(/(?<=\s|\[)--[a-z][a-z-]*/g)?.filter((f) => f !== "--") ?? [])
      assert.ok(
        flags.has(flag) || help.common.has(flag),
        `${where}: ${flag} is not among the flags "${sub}" lists in --help (${[...flags].join(" ")})`,
      );
  }
}

/**
 * The documented text made concrete: `[optional]` parts kept only when named in `keep`, the
 * placeholders (and alternations such as `a|b|c`) replaced as `values` say.
 */
function concrete(documented: string, keep: string[], values: Record<string, string>): string {
  let out = documented.replace(/ \[([^\]]+)\]/g, (_, inner: string) =>
    keep.includes(inner) ? ` ${inner}` : "",
  );
  for (const k of keep) assert.ok(documented.includes(`[${k}]`), `no [${k}] in ${documented}`);
  for (const [placeholder, value] of Object.entries(values)) {
    assert.ok(out.includes(placeholder), `no ${placeholder} in ${out}`);
    out = out.split(placeholder).join(value);
  }
  assert.doesNotMatch(out, /…|<[a-z]|\[/, `a placeholder is left in ${out}`);
  return out;
}

describe("documented commands", () => {
  let ctx: TestContext;
  let platformUrl: string;
  let helper: Server;
  let helperUrl: string;
  let work: string;
  let config: string;
  let app: Awaited<ReturnType<typeof installedApp>>;
  let orderIds: string[];
  let subscriptionId: string;
  let stopWorker = async () => {};
  const privacySecret = `whsec_${randomBytes(32).toString("base64")}`;
  const ran = new Set<string>();
  const documented = documentedCommands();

  /** Runs one documented command as written, through /bin/sh, from a directory inside the repo. */
  function sh(
    doc: Documented,
    keep: string[],
    values: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string; command: string }> {
    assert.ok(
      documented.some((d) => d.text === doc),
      `not documented any more: ${doc}`,
    );
    ran.add(doc);
    const command = concrete(doc, keep, values);
    // The environment of a user's shell: no npm_* or test-runner variables, no MP_* settings; the
    // CLI's saved login kept in this test's own directory (MERCHANT_PLATFORM_CONFIG).
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env))
      if (!/^(npm_|NODE_TEST|MP_|MERCHANT_PLATFORM_)/i.test(k)) env[k] = v;
    env.MERCHANT_PLATFORM_CONFIG = config;
    return new Promise((resolve) => {
      execFile(
        "/bin/sh",
        ["-c", command],
        { cwd: work, env, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
          resolve({ code, stdout, stderr, command });
        },
      );
    });
  }
  const succeeded = (r: { code: number; stdout: string; stderr: string; command: string }) =>
    assert.equal(r.code, 0, `${r.command}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  const lines = (s: string) => s.split("\n").filter(Boolean);
  const jsonl = (file: string) => {
    const body = readFileSync(join(work, file), "utf8");
    assert.ok(body === "" || body.endsWith("\n"), `${file} ends with a whole line`);
    return lines(body).map((l) => JSON.parse(l) as { id: string });
  };
  const sortedIds = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();

  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    platformUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    // The sample app's scopes (docs step 2), widened by read_products and read_customers as the
    // export section says to.
    app = await installedApp(ctx.app, [...SCOPES, "read_products", "read_customers"]);
    // The app's side: its dev token endpoint (for --token-command) and a privacy endpoint that
    // verifies signatures with the SDK.
    helper = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.url === "/dev/token") return res.end(app.tokens.accessToken);
        try {
          verifyWebhook({
            rawBody: Buffer.concat(chunks).toString("utf8"),
            headers: headersOf(req.headers),
            secret: privacySecret,
          });
          res.end("ok");
        } catch {
          res.statusCode = 401;
          res.end("bad signature");
        }
      });
    });
    await new Promise<void>((resolve) => helper.listen(0, "127.0.0.1", resolve));
    helperUrl = `127.0.0.1:${(helper.address() as AddressInfo).port}`;
    // Inside the repository (where npm finds its package.json, as from any of its directories),
    // ignored by git, one per run: the documented `> orders.jsonl` lands here.
    mkdirSync(join(ROOT, ".tmp"), { recursive: true });
    work = mkdtempSync(join(ROOT, ".tmp", "documented-commands-"));
    config = join(work, "config", "config.json");

    // The store: products (by the merchant), orders placed by the app, a subscription.
    for (let i = 0; i < 3; i++)
      ok(
        await app.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: app.merchant.slug } },
          body: flat({ title: `Mug ${i}`, price: "12.00", sku: `MUG-${i}`, stock: 500 }),
        }),
        201,
      );
    // Before the orders, so each has a delivery (pending: no delivery worker runs here).
    const sub = await app.api.POST("/api/v1/apps/api/webhooks", {
      body: { eventName: "order.created", targetUrl: "https://127.0.0.1:9/webhooks" },
    });
    subscriptionId = ok(sub, 201).data.id;
    // The delivery worker turns events into deliveries (their target refuses: they wait to retry).
    const worker = ctx.platform.webhooks.createWorker(pino({ level: "silent" }));
    const unlisten = await listenForEvents(ctx.platform.database, worker.poke, () => {});
    worker.start();
    stopWorker = async () => {
      await unlisten();
      await worker.stop();
    };
    const products = ok(await app.api.GET("/api/v1/apps/api/products", {})).data;
    orderIds = [];
    for (let i = 0; i < 23; i++) {
      const order = await app.api.POST("/api/v1/apps/api/orders", {
        body: {
          customer: { email: `buyer${i % 7}@example.com`, firstName: "Buyer", lastName: `${i}` },
          lineItems: [{ productId: products[i % products.length]!.id, quantity: 1 + (i % 3) }],
        },
      });
      orderIds.push(ok(order, 201).data.id);
    }
  });
  after(async () => {
    await stopWorker();
    helper?.close();
    await ctx?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("every documented command is run here or listed with its reason; scripts, subcommands and flags exist", () => {
    const help = cliHelp();
    assert.ok(help.commands.size >= 10, `--help lists the commands: ${[...help.commands.keys()]}`);
    const texts = new Set(documented.map((d) => d.text));
    assert.ok(texts.size >= RUN.length, "the sh blocks were read");
    for (const cmd of documented) {
      assert.ok(
        (RUN as readonly string[]).includes(cmd.text) || cmd.text in NOT_RUN,
        `${cmd.file}:${cmd.line}: "${cmd.text}" is neither run by this test nor listed in NOT_RUN with a reason`,
      );
      checkDocumented(cmd, help);
    }
    for (const listed of [...RUN, ...Object.keys(NOT_RUN)])
      assert.ok(texts.has(listed), `"${listed}" is not documented any more: drop it from this test`);
  });

  it("login, trigger, deliveries, redeliver, events, webhooks, rotate-secret, recover, enable", async () => {
    const login = await sh(RUN[0], [], {
      "http://localhost:3000": platformUrl,
      "localhost:8080": helperUrl,
    });
    succeeded(login);
    assert.match(login.stdout, /Saved to .*config\.json/);
    assert.equal(JSON.parse(readFileSync(config, "utf8")).baseUrl, platformUrl);

    const trigger = await sh(RUN[1], [], {});
    succeeded(trigger);
    assert.match(trigger.stdout, /^Test event \S+ \(order\.created\) queued/m);

    // Waits (on the condition) until the worker has made the test event's delivery.
    for (const deadline = Date.now() + 30_000; ; ) {
      const rows = ok(
        await app.api.GET("/api/v1/apps/api/webhooks/deliveries", { params: { query: { limit: 100 } } }),
      ).data;
      if (rows.length === orderIds.length + 1) break;
      assert.ok(Date.now() < deadline, `deliveries made: ${rows.length}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const deliveries = await sh(RUN[2], ["--event order.created", "--limit 20"], {});
    succeeded(deliveries);
    const testDelivery = lines(deliveries.stdout).find((l) => / order\.created .*\[test\]$/.test(l));
    assert.ok(testDelivery, `the test event's delivery is listed:\n${deliveries.stdout}`);
    const listed = lines(deliveries.stdout).filter((l) => /^whd_\S+ +order\.created /.test(l));
    assert.equal(listed.length, 20, "--limit 20 of the 23 orders' deliveries and the test event's");
    const deliveryId = testDelivery.split(/\s+/)[0]!;
    assert.match(deliveryId, /^whd_/);

    const redeliver = await sh(RUN[3], [], { "whd_…": deliveryId });
    succeeded(redeliver);
    assert.match(redeliver.stdout, new RegExp(`^Queued whd_\\S+ \\(a new delivery of ${deliveryId}\\)`, "m"));

    const events = await sh(RUN[4], ["--types order.created", "--limit 100", "--json"], {});
    succeeded(events);
    // Without -s, npm's own "> …" lines come first on stdout; the events are the JSON lines.
    const feed = lines(events.stdout)
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { type: string; resource: { id: string } });
    assert.ok(feed.every((e) => e.type === "order.created"));
    assert.deepEqual(
      feed.map((e) => e.resource.id).filter((id) => orderIds.includes(id)),
      orderIds,
      "every order's order.created, in order",
    );
    assert.match(events.stderr, /event\(s\)\. Continue after them with --after \d+/);

    const webhooks = await sh(RUN[5], [], {});
    succeeded(webhooks);
    assert.match(
      webhooks.stdout,
      new RegExp(`^${subscriptionId} +order\\.created +active +https://127\\.0\\.0\\.1:9/webhooks`, "m"),
    );

    const rotated = await sh(RUN[6], [], { "whsub_…": subscriptionId });
    succeeded(rotated);
    assert.match(rotated.stdout, new RegExp(`^New signing secret for ${subscriptionId}: whsec_\\S+`, "m"));

    const recovered = await sh(RUN[7], [], { "whsub_…": subscriptionId });
    succeeded(recovered);
    assert.match(recovered.stdout, /^(Nothing to recover between|Queued \d+ failed)/m);

    // A disabled subscription, as 5 days of failures leave it, made active again.
    await ctx.platform.db
      .updateTable("webhook_subscriptions")
      .set({ status: "disabled", disabled_at: new Date(), disabled_reason: "failing" })
      .where("id", "=", subscriptionId)
      .execute();
    const enabled = await sh(RUN[8], ["--recover-since 3d"], { "whsub_…": subscriptionId });
    succeeded(enabled);
    assert.match(enabled.stdout, new RegExp(`^${subscriptionId} is active\\. Queued \\d+`, "m"));
  });

  it("check-privacy against an endpoint that verifies signatures", async () => {
    const checked = await sh(RUN[9], [], {
      "https://app.example.com/privacy": `http://${helperUrl}/privacy`,
      "whsec_…": privacySecret,
    });
    succeeded(checked);
    assert.match(checked.stdout, /The endpoint refuses bad signatures and accepts good ones\./);
  });

  it("export to JSON Lines files: exactly the store's records, nothing of npm's or the progress lines", async () => {
    const listed = async (resource: "orders" | "products" | "customers") =>
      ok(await app.api.GET(`/api/v1/apps/api/${resource}`, { params: { query: { limit: 250 } } }))
        .data as Array<{
        id: string;
      }>;
    const orders = await listed("orders");
    assert.equal(orders.length, orderIds.length);

    const all = await sh(RUN[10], [], {});
    succeeded(all);
    assert.equal(all.stdout, "", "everything went to the file");
    assert.match(all.stderr, /orders: 23 exported/);
    const exported = jsonl("orders.jsonl");
    assert.deepEqual(sortedIds(exported), sortedIds(orders));
    const byId = new Map(orders.map((o) => [o.id, o]));
    for (const o of exported) assert.deepEqual(o, byId.get(o.id));

    const recent = await sh(RUN[11], [], {});
    succeeded(recent);
    assert.deepEqual(
      sortedIds(jsonl("recent-orders.jsonl")),
      sortedIds(orders),
      "all placed after that date",
    );

    const products = await sh(RUN[13], ["--updated-since 2h"], { "products|orders|customers": "products" });
    succeeded(products);
    assert.deepEqual(sortedIds(jsonl("products.jsonl")), sortedIds(await listed("products")));

    // A key pair with read_customers, made by the merchant on the dashboard.
    const key = ok(
      await app.merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: app.merchant.slug } },
        body: { name: "Export", scopes: ["read_customers"] satisfies KeyScope[] },
      }),
      201,
    ).data;
    const customers = await sh(RUN[12], [], { "mpk_…": key.keyId, "mpsk_…": key.secret });
    succeeded(customers);
    const exportedCustomers = jsonl("customers.jsonl");
    assert.equal(exportedCustomers.length, 7, "the orders' 7 buyers");
    assert.deepEqual(sortedIds(exportedCustomers), sortedIds(await listed("customers")));
  });

  it("ran every command of RUN", () => {
    assert.deepEqual([...ran].sort(), [...RUN].sort());
  });
});

function headersOf(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}
