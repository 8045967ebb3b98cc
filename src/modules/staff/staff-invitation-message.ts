import { STORE_ROLES, type StaffRole } from "../../contracts/index.ts";

/** An e-mail as the platform's mailer takes it (`mailer.send({ to, subject, text, html })`). */
export interface InvitationMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What the message is, for the mail outbox. */
  kind: "staff_invitation";
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
/** Text as HTML: a store's or a person's name is whatever they typed. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * The invitation to join a store: who invites, to which store, with which role (and what it
 * allows), the link and until when it works. Plain text and HTML say the same.
 */
export function invitationMessage(input: {
  to: string;
  storeName: string;
  role: StaffRole;
  inviter: string;
  acceptUrl: string;
  expiresAt: Date;
}): InvitationMessage {
  const role = STORE_ROLES[input.role];
  const until = input.expiresAt.toUTCString();
  const subject = `${input.inviter} invited you to work in ${input.storeName}`;
  const text = [
    `${input.inviter} invited you to work in ${input.storeName} as ${role.label}.`,
    "",
    `${role.label}: ${role.description}`,
    "",
    `Accept the invitation (sign in or create an account with ${input.to}):`,
    input.acceptUrl,
    "",
    `The link works once, until ${until}. If you did not expect this, ignore this e-mail.`,
  ].join("\n");
  const body = [
    `<p>${html(input.inviter)} invited you to work in <strong>${html(input.storeName)}</strong> as <strong>${html(role.label)}</strong>.</p>`,
    `<p>${html(role.label)}: ${html(role.description)}</p>`,
    `<p><a href="${html(input.acceptUrl)}">Accept the invitation</a> (sign in or create an account with ${html(input.to)}).</p>`,
    `<p>The link works once, until ${html(until)}. If you did not expect this, ignore this e-mail.</p>`,
  ].join("\n");
  return { to: input.to, subject: subject.slice(0, 200), text, html: body, kind: "staff_invitation" };
}
