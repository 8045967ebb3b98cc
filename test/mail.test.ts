import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { composeMail } from "../src/modules/mail/templates.ts";
import { createTestContext, type TestContext, uniqueEmail } from "./harness.ts";
import { freeSmtpPort, startSmtpServer } from "./smtp-server.ts";

/**
 * The mail component end to end: mailer.send puts a message in the outbox, the worker sends it
 * through a real SMTP server (smtp-server, started here), and the message arrives as written.
 */
describe("mail: the outbox drained through a real SMTP server", () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let ctx: TestContext;
  before(async () => {
    smtp = await startSmtpServer();
    ctx = await createTestContext({
      SMTP_URL: smtp.url,
      MAIL_FROM: "Test Platform <platform@example.test>",
      MAIL_RETRY_BASE_MS: "1000",
      MAIL_MAX_ATTEMPTS: "3",
    });
  });
  after(async () => {
    await ctx.close();
    await smtp.close();
  });

  it("sends a composed message: envelope, headers, text and HTML parts", async () => {
    const to = uniqueEmail("reader");
    const body = composeMail({
      subject: "Hello <there>",
      heading: "A heading & more",
      paragraphs: ["First <b>paragraph</b>."],
      action: { label: "Open it", url: "https://shop.example/path?a=1&b=2" },
      footer: "You receive this because a test asked.",
    });
    const { id } = await ctx.platform.mail.mailer.send({ ...body, to, kind: "test" });
    assert.match(id, /^mail_[0-9A-Za-z]{22}$/);
    assert.equal(await ctx.platform.mail.worker.drain(), 1);
    const [mail] = (await smtp.waitFor(1)).filter((m) => m.to[0] === to);
    assert.ok(mail);
    assert.deepEqual(mail.to, [to]);
    assert.equal(mail.from, "platform@example.test");
    assert.equal(mail.parsed.subject, "Hello <there>");
    assert.deepEqual(mail.parsed.from?.value, [{ name: "Test Platform", address: "platform@example.test" }]);
    assert.equal(mail.parsed.messageId, `<${id}@127.0.0.1>`);
    assert.match(mail.parsed.text ?? "", /Open it:\nhttps:\/\/shop\.example\/path\?a=1&b=2/);
    const html = String(mail.parsed.html);
    // Text is escaped in the HTML part: the paragraph's tags are characters, not markup.
    assert.match(html, /First &lt;b&gt;paragraph&lt;\/b&gt;\./);
    assert.match(html, /href="https:\/\/shop\.example\/path\?a=1&amp;b=2"/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    const row = await ctx.platform.mail.repo.find(id);
    assert.equal(row?.status, "sent");
    assert.equal(row?.attempts, 1);
  });

  it("keeps a message the server refuses for a while, and sends it on a later attempt", async () => {
    const to = uniqueEmail("patient");
    smtp.refuse(451);
    const { id } = await ctx.platform.mail.mailer.send({ to, subject: "Later", text: "t", html: "<p>t</p>" });
    await ctx.platform.mail.worker.drain();
    let row = await ctx.platform.mail.repo.find(id);
    assert.equal(row?.status, "pending");
    assert.equal(row?.attempts, 1);
    assert.match(row?.last_error ?? "", /451/);
    // Not due again before its back-off (1 s ± 20%): a drain now attempts nothing.
    assert.equal(await ctx.platform.mail.worker.drain(), 0);
    smtp.refuse(null);
    ctx.clock.advance(1500);
    assert.equal(await ctx.platform.mail.worker.drain(), 1);
    row = await ctx.platform.mail.repo.find(id);
    assert.equal(row?.status, "sent");
    assert.equal(row?.attempts, 2);
    assert.ok((await smtp.waitFor(0)).some((m) => m.to[0] === to));
  });

  it("gives up after MAIL_MAX_ATTEMPTS and says why", async () => {
    const to = uniqueEmail("never");
    smtp.refuse(550);
    const { id } = await ctx.platform.mail.mailer.send({ to, subject: "Never", text: "t", html: "<p>t</p>" });
    for (let i = 0; i < 3; i++) {
      await ctx.platform.mail.worker.drain();
      ctx.clock.advance(10_000);
    }
    smtp.refuse(null);
    const row = await ctx.platform.mail.repo.find(id);
    assert.equal(row?.status, "failed");
    assert.equal(row?.attempts, 3);
    assert.match(row?.last_error ?? "", /550/);
    assert.ok(!smtp.received.some((m) => m.to[0] === to));
  });

  it("sends nothing written in a transaction that rolled back, and what committed once", async () => {
    const kept = uniqueEmail("kept");
    const dropped = uniqueEmail("dropped");
    await ctx.platform.db
      .transaction()
      .execute(async (tx) => {
        await ctx.platform.mail.mailer.send({ to: dropped, subject: "No", text: "t", html: "<p>t</p>" }, tx);
        throw new Error("roll back");
      })
      .catch(() => {});
    await ctx.platform.db.transaction().execute(async (tx) => {
      await ctx.platform.mail.mailer.send({ to: kept, subject: "Yes", text: "t", html: "<p>t</p>" }, tx);
    });
    // Two drains at once (two workers): the claim gives the message to one of them.
    const [a, b] = await Promise.all([ctx.platform.mail.worker.drain(), ctx.platform.mail.worker.drain()]);
    assert.equal(a + b, 1);
    const before = smtp.received.length;
    await ctx.platform.mail.worker.drain();
    assert.equal(smtp.received.length, before);
    assert.equal(smtp.received.filter((m) => m.to[0] === kept).length, 1);
    assert.ok(!smtp.received.some((m) => m.to[0] === dropped));
  });

  it("refuses a message that could not be sent or that would inject a header", async () => {
    const mailer = ctx.platform.mail.mailer;
    await assert.rejects(mailer.send({ to: "not an address", subject: "s", text: "t", html: "h" }));
    await assert.rejects(
      mailer.send({ to: "a@example.com\r\nBcc: b@example.com", subject: "s", text: "t", html: "h" }),
    );
    await assert.rejects(mailer.send({ to: "a@example.com", subject: " ", text: "t", html: "h" }));
    // A line break in a subject becomes a space: no header can be added through it.
    const to = uniqueEmail("header");
    await mailer.send({ to, subject: "Hi\r\nBcc: victim@example.com", text: "t", html: "<p>t</p>" });
    await ctx.platform.mail.worker.drain();
    const [mail] = smtp.received.filter((m) => m.to[0] === to);
    assert.equal(mail?.parsed.subject, "Hi Bcc: victim@example.com");
    assert.equal(mail?.parsed.bcc, undefined);
    assert.deepEqual(mail?.to, [to]);
  });

  it("deletes sent messages after MAIL_RETENTION_DAYS, never one still waiting", async () => {
    const to = uniqueEmail("old");
    smtp.refuse(451);
    const waiting = await ctx.platform.mail.mailer.send({ to, subject: "Wait", text: "t", html: "<p>t</p>" });
    await ctx.platform.mail.worker.drain();
    smtp.refuse(null);
    const cutoff = new Date(ctx.clock.now().getTime() + 1000);
    const deleted = await ctx.platform.mail.repo.prune(cutoff);
    assert.ok(deleted >= 1);
    assert.ok(await ctx.platform.mail.repo.find(waiting.id));
    const left = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM mail_messages WHERE status <> 'pending'`.execute(ctx.platform.db);
    assert.equal(left.rows[0]?.n, 0);
  });
});

describe("mail: an SMTP server that is down", () => {
  it("keeps the message while nothing answers, and sends it once the server is up", async () => {
    const port = await freeSmtpPort();
    const ctx = await createTestContext({
      SMTP_URL: `smtp://mailer:secret@127.0.0.1:${port}`,
      MAIL_RETRY_BASE_MS: "1000",
      MAIL_TIMEOUT_MS: "2000",
    });
    let smtp: Awaited<ReturnType<typeof startSmtpServer>> | undefined;
    try {
      const to = uniqueEmail("down");
      const { id } = await ctx.platform.mail.mailer.send({
        to,
        subject: "Down",
        text: "t",
        html: "<p>t</p>",
      });
      await ctx.platform.mail.worker.drain();
      const row = await ctx.platform.mail.repo.find(id);
      assert.equal(row?.status, "pending");
      assert.match(row?.last_error ?? "", /ECONNREFUSED/);
      smtp = await startSmtpServer({ port });
      ctx.clock.advance(1500);
      await ctx.platform.mail.worker.drain();
      const [mail] = await smtp.waitFor(1);
      assert.deepEqual(mail?.to, [to]);
      assert.equal((await ctx.platform.mail.repo.find(id))?.status, "sent");
    } finally {
      await ctx.close();
      await smtp?.close();
    }
  });

  it("without SMTP_URL keeps every message in the local outbox", async () => {
    const ctx = await createTestContext();
    try {
      assert.equal(ctx.platform.mail.transport, "outbox");
      const { id } = await ctx.platform.mail.mailer.send({
        to: uniqueEmail("local"),
        subject: "Kept",
        text: "t",
        html: "<p>t</p>",
      });
      await ctx.platform.mail.worker.drain();
      const row = await ctx.platform.mail.repo.find(id);
      assert.equal(row?.status, "sent");
      assert.equal(row?.text_body, "t");
    } finally {
      await ctx.close();
    }
  });
});
