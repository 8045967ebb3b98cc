import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sameOriginPath } from "../web/src/lib/next-path.ts";

/** The dashboard's login page goes to `next` after signing in (web/src/pages/auth.tsx). */
const ORIGIN = "https://shop.example";

describe("login page: where next may lead", () => {
  it("keeps a path of this origin, with its query and fragment", () => {
    for (const path of ["/", "/stores/demo/orders", "/stores/demo/orders?q=1042&sort=-total", "/apps#keys"])
      assert.equal(sameOriginPath(path, ORIGIN), path);
    assert.equal(sameOriginPath("/stores/demo/../x", ORIGIN), "/stores/x", "normalised as the browser would");
  });

  it("sends anything that leaves the origin, or is not a path, to /", () => {
    for (const next of [
      null,
      "",
      "stores",
      "//evil.example",
      "///evil.example",
      // A backslash is a slash to URL parsers: `//evil.example`. Passed the old prefix check.
      "/\\evil.example",
      "/\\/evil.example",
      // `next=/%09/evil.example` arrives decoded: URL parsers drop the tab. Passed the old check.
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "https://evil.example/",
      `${ORIGIN}.evil.example/`,
      "javascript:alert(1)",
      " /stores",
    ])
      assert.equal(sameOriginPath(next, ORIGIN), "/", JSON.stringify(next));
  });

  it("reads the query the way the page does: percent-escapes decoded first", () => {
    for (const query of ["next=/%09/evil.example", "next=/%5Cevil.example", "next=%2F%2Fevil.example"])
      assert.equal(sameOriginPath(new URLSearchParams(query).get("next"), ORIGIN), "/", query);
    assert.equal(
      sameOriginPath(new URLSearchParams("next=%2Fstores%2Fdemo%3Fq%3Dab").get("next"), ORIGIN),
      "/stores/demo?q=ab",
    );
  });
});
