import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { invitationMessage } from "./staff-invitation-message.ts";

describe("the invitation e-mail", () => {
  const message = invitationMessage({
    to: "sam@example.com",
    storeName: `Tea & "Cake" <b>`,
    role: "catalogue",
    inviter: "Ada <script>",
    acceptUrl: "https://shop.example/invitation#token=mpinv_abc",
    expiresAt: new Date("2026-12-06T10:00:00Z"),
  });

  it("names the inviter, the store, the role and what it allows, the link and its end", () => {
    assert.equal(message.to, "sam@example.com");
    assert.match(message.subject, /^Ada <script> invited you to work in Tea & "Cake" <b>$/);
    assert.match(message.text, /as Catalogue\./);
    assert.match(message.text, /Products, collections, stock/);
    assert.match(message.text, /https:\/\/shop\.example\/invitation#token=mpinv_abc/);
    assert.match(message.text, /Sun, 06 Dec 2026 10:00:00 GMT/);
  });

  it("escapes what people typed in the HTML", () => {
    assert.ok(!message.html.includes("<script>"));
    assert.ok(!message.html.includes("<b>"));
    assert.match(message.html, /Tea &amp; &quot;Cake&quot; &lt;b&gt;/);
    assert.match(message.html, /Ada &lt;script&gt;/);
    assert.match(message.html, /href="https:\/\/shop\.example\/invitation#token=mpinv_abc"/);
  });
});
