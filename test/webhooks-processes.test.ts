import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { installedApp } from "./apps-harness.ts";
import { flat, SYSTEM_ACTOR } from "./catalogue.ts";
import { createTestContext, type EventBody, TEST_DATABASE_URL, type TestContext } from "./harness.ts";
import { startReceiver } from "./receiver.ts";
import { waitUntil } from "./webhooks-harness.ts";

/**
 * Worker processes exactly as operators run them (`RUN_MODE=worker node src/main.ts`), sharing
 * one PostgreSQL server with the test. The embedded database belongs to one process, so these
 * run on the PostgreSQL pass (TEST_DATABASE_URL) only.
 */
const skip = TEST_DATABASE_URL
  ? undefined
  : "needs TEST_DATABASE_URL (several processes share one PostgreSQL server)";
const ROOT = join(import.meta.dirname, "..");

function startWorker(ctx: TestContext, secretsKey: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [join(ROOT, "src/main.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      RUN_MODE: "worker",
      DATABASE_URL: TEST_DATABASE_URL!,
      DATABASE_SCHEMA: ctx.schema,
      SECRETS_KEY: secretsKey,
      DEMO_SEED: "false",
      LOG_LEVEL: "error",
      METRICS_PORT: "0", // several workers at once: none needs the metrics listener
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_RETRY_BASE_MS: "200",
      WEBHOOK_TIMEOUT_MS: "2000",
      WEBHOOK_LEASE_MS: "3000",
      ...env,
    },
  });
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

describe("delivery worker processes on one PostgreSQL", { skip }, () => {
  let ctx: TestContext;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const secretsKey = randomBytes(32).toString("base64");
  const children: ChildProcess[] = [];
  before(async () => {
    ctx = await createTestContext({ SECRETS_KEY: secretsKey, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    rx = await startReceiver();
  });
  after(async () => {
    await Promise.all(children.map((c) => stopProcess(c, "SIGKILL")));
    await rx.close();
    await ctx.close();
  });

  const maxAttempts = async () => {
    const row = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select((eb) => [eb.fn.max("attempts").as("max"), eb.fn.countAll<number>().as("n")])
      .executeTakeFirstOrThrow();
    return { max: Number(row.max ?? 0), n: Number(row.n) };
  };

  it("survives SIGKILL mid-delivery: every committed event still arrives, no delivery over 8 attempts", async () => {
    const inst = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: `${rx.url}/crash`,
      },
    });
    // The receiver is slow at first, so the kill lands while attempts are in flight.
    rx.setResponder((_r, res) => setTimeout(() => res.end("ok"), 800));
    const store = (await ctx.platform.repos.stores.findBySlug(inst.merchant.slug))!;
    const eventIds = new Set<string>();
    for (let i = 0; i < 40; i++)
      await ctx.platform.services.products.create(store, flat({ title: `P${i}`, price: "1" }), SYSTEM_ACTOR);
    for (const e of await ctx.platform.db
      .selectFrom("events")
      .select("id")
      .where("store_id", "=", store.id)
      .where("topic", "=", "product.created")
      .execute()) {
      eventIds.add(e.id);
    }
    assert.equal(eventIds.size, 40);

    const first = startWorker(ctx, secretsKey);
    children.push(first);
    await rx.waitFor(5, 30_000);
    await stopProcess(first, "SIGKILL");
    const receivedBeforeKill = rx.received.length;

    rx.setResponder((_r, res) => res.end("ok"));
    const second = startWorker(ctx, secretsKey);
    children.push(second);
    await waitUntil(
      async () => {
        const seen = new Set(rx.received.map((r) => (JSON.parse(r.body) as EventBody).id));
        return [...eventIds].every((id) => seen.has(id));
      },
      60_000,
      "every event delivered after the restart",
    );
    const { max } = await maxAttempts();
    assert.ok(max <= 8, `a delivery was attempted ${max} times`);
    assert.ok(rx.received.every((r) => Number(r.headers["x-webhook-attempt"]) <= 8));
    await waitUntil(
      async () =>
        (
          await ctx.platform.db
            .selectFrom("webhook_deliveries")
            .select("id")
            .where("status", "!=", "delivered")
            .execute()
        ).length === 0,
      30_000,
      "all deliveries marked delivered",
    );
    assert.ok(receivedBeforeKill >= 5);
    await stopProcess(second);
  });

  it("two workers deliver 1,000 events, every one, none attempted by both at once", async () => {
    const inst = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: `${rx.url}/pair`,
      },
    });
    const inFlight = new Map<string, number>();
    const overlaps: string[] = [];
    const perDelivery = new Map<string, number>();
    rx.setResponder((r, res) => {
      const id = String(r.headers["x-webhook-id"]);
      if (r.path !== "/pair") return res.end("ok");
      perDelivery.set(id, (perDelivery.get(id) ?? 0) + 1);
      if (inFlight.get(id)) overlaps.push(id);
      inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
      setTimeout(() => {
        inFlight.set(id, inFlight.get(id)! - 1);
        res.end("ok");
      }, 5);
    });
    const store = (await ctx.platform.repos.stores.findBySlug(inst.merchant.slug))!;
    const started = Date.now();
    const workers = [startWorker(ctx, secretsKey), startWorker(ctx, secretsKey)];
    children.push(...workers);
    for (let i = 0; i < 1000; i++)
      await ctx.platform.services.products.create(
        store,
        flat({ title: `Bulk ${i}`, price: "1" }),
        SYSTEM_ACTOR,
      );
    await waitUntil(() => perDelivery.size >= 1000, 120_000, "1,000 distinct deliveries");
    const elapsed = Date.now() - started;
    // Every delivery has its outcome recorded: no attempt can be under way any more.
    await waitUntil(
      async () =>
        Number(
          (
            await ctx.platform.db
              .selectFrom("webhook_deliveries")
              .select((e) => e.fn.countAll<number>().as("n"))
              .where("status", "=", "pending")
              .executeTakeFirstOrThrow()
          ).n,
        ) === 0,
      60_000,
      "every outcome recorded",
    );
    assert.equal(perDelivery.size, 1000);
    assert.deepEqual(overlaps, [], "a delivery was attempted by two workers at once");
    const duplicates = [...perDelivery.values()].filter((n) => n > 1).length;
    assert.equal(duplicates, 0, "with a healthy receiver each delivery is attempted exactly once");
    const bodies = new Set(
      rx.received.filter((r) => r.path === "/pair").map((r) => (JSON.parse(r.body) as EventBody).id),
    );
    assert.equal(bodies.size, 1000, "every event arrived");
    console.log(`two workers: 1,000 events created and delivered in ${elapsed} ms`);
    await Promise.all(workers.map((w) => stopProcess(w)));
  });
});
