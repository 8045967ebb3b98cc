/**
 * The platform's e-mails, composed from a few parts: a heading, paragraphs, at most one button (its
 * link also written out, for clients that block buttons and for the text part), and a footer line.
 * One layout for every message, readable on a phone: a single column at most 560 px wide, 16 px
 * text, a button a thumb can hit, inline styles only (mail clients drop style sheets). Every part
 * is text: it is escaped here, so a name or a store's title cannot inject markup.
 */
export interface MailContent {
  subject: string;
  /** Shown by mail clients next to the subject in the inbox list; the heading when left out. */
  preview?: string;
  heading: string;
  /** Paragraphs before the button. */
  paragraphs: readonly string[];
  action?: { label: string; url: string };
  /** Paragraphs after the button (how long a link works, what to do if it was not you). */
  after?: readonly string[];
  /** The small print at the bottom: why this person received the message. */
  footer: string;
}

/** Name shown in every message's header and closing. */
export const PRODUCT_NAME = "Merchant Platform";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The text and HTML bodies of a message (pass the result, with `to` and `kind`, to `mailer.send`). */
export function composeMail(content: MailContent): { subject: string; text: string; html: string } {
  if (content.action && !/^https?:\/\//.test(content.action.url))
    throw new Error("mail: an action's link must be an absolute http(s) URL");
  const text = [
    content.heading,
    "",
    ...content.paragraphs.flatMap((p) => [p, ""]),
    ...(content.action ? [`${content.action.label}:`, content.action.url, ""] : []),
    ...(content.after ?? []).flatMap((p) => [p, ""]),
    "--",
    content.footer,
    "",
  ].join("\n");

  const paragraph = (p: string) =>
    `<p style="margin:0 0 16px;font-size:16px;line-height:1.5;color:#1f2933">${escapeHtml(p)}</p>`;
  const action = content.action
    ? `<table role="presentation" cellspacing="0" cellpadding="0" border="0" style="margin:8px 0 24px"><tr><td style="border-radius:6px;background:#1a7f37">
<a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:14px 24px;font-size:16px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(content.action.label)}</a>
</td></tr></table>
<p style="margin:0 0 16px;font-size:14px;line-height:1.5;color:#52606d">If the button does not work, open this link:<br><a href="${escapeHtml(content.action.url)}" style="color:#1a7f37;word-break:break-all">${escapeHtml(content.action.url)}</a></p>`
    : "";
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${escapeHtml(content.subject)}</title>
</head>
<body style="margin:0;padding:0;background:#f3f4f6;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif">
<div style="display:none;max-height:0;overflow:hidden">${escapeHtml(content.preview ?? content.heading)}</div>
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="background:#f3f4f6">
<tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="max-width:560px;background:#ffffff;border-radius:8px">
<tr><td style="padding:20px 24px 0;font-size:14px;font-weight:600;color:#52606d">${escapeHtml(PRODUCT_NAME)}</td></tr>
<tr><td style="padding:12px 24px 8px">
<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3;color:#111827">${escapeHtml(content.heading)}</h1>
${content.paragraphs.map(paragraph).join("\n")}
${action}
${(content.after ?? []).map(paragraph).join("\n")}
</td></tr>
<tr><td style="padding:16px 24px 20px;border-top:1px solid #e5e7eb;font-size:13px;line-height:1.5;color:#52606d">${escapeHtml(content.footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  return { subject: content.subject, text, html };
}
