import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify from "fastify";
import { installDocs } from "./docs.ts";
import { type FeatureRoutes, tagDescriptions } from "./feature-routes.ts";

const LIMITS = { requestsPerMinute: 60, accessTokenSeconds: 3600, refreshTokenSeconds: 86400 };

/** An application with the docs and one GET route per tag list given. */
async function appWith(described: Record<string, string>, routes: string[][]) {
  const app = Fastify();
  await installDocs(app, "http://localhost", {
    tags: new Map(Object.entries(described)),
    limits: LIMITS,
    apiVersion: "2026-11-28",
  });
  routes.forEach((tags, i) => {
    app.get(`/r${i}`, { schema: { operationId: `r${i}`, security: [], tags } }, async () => ({}));
  });
  return app;
}

describe("the OpenAPI tag list, derived from the routes", () => {
  it("lists the tags the routes use, in the order they are first used, with their descriptions", async () => {
    const app = await appWith({ A: "first", B: "second", C: "third" }, [["C"], ["A", "C"], ["B"]]);
    await app.ready();
    const doc = app.swagger() as { tags: { name: string; description: string }[] };
    assert.deepEqual(doc.tags, [
      { name: "C", description: "third" },
      { name: "A", description: "first" },
      { name: "B", description: "second" },
    ]);
    await app.close();
  });

  it("stops the app when a route uses a tag no feature describes", async () => {
    await assert.rejects(async () => {
      const app = await appWith({ A: "first" }, [["A"], ["Undescribed"]]);
      await app.ready();
    }, /no feature describes the tag "Undescribed"/);
  });

  it("stops the app when a described tag is used by no route", async () => {
    const app = await appWith({ A: "first", Orphan: "nobody uses it" }, [["A"]]);
    await assert.rejects(async () => {
      await app.ready();
    }, /used by no route: Orphan/);
  });

  it("refuses a tag described by two features", () => {
    const features: FeatureRoutes[] = [{ tags: { A: "one" } }, { tags: { B: "two", A: "again" } }];
    assert.throws(() => tagDescriptions(features), /"A" is described by two features/);
    assert.deepEqual([...tagDescriptions(features.slice(0, 1))], [["A", "one"]]);
  });
});
