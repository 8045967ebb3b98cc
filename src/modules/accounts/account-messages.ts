import type { MailMessage } from "../mail/mailer.ts";
import { composeMail, PRODUCT_NAME } from "../mail/templates.ts";

/**
 * The e-mails of a merchant's account. Links carry their secret after `#`: a fragment is never
 * sent to a server, so it is not in any access log, and no page the dashboard links to can read
 * it from a Referer header (the pages also send `Referrer-Policy: no-referrer`).
 */
export const accountMessages = {
  passwordReset(input: { to: string; name: string; link: string; validMinutes: number }): MailMessage {
    return {
      to: input.to,
      kind: "password_reset",
      ...composeMail({
        subject: `Reset your ${PRODUCT_NAME} password`,
        heading: "Reset your password",
        paragraphs: [
          `Hello ${input.name},`,
          "Someone, hopefully you, asked to reset the password of the account that signs in with this address. Choose a new password with the button below.",
        ],
        action: { label: "Choose a new password", url: input.link },
        after: [
          `The link works once, for ${input.validMinutes} minutes. Resetting signs the account out everywhere else.`,
          "If you did not ask for this, ignore this message: your password stays as it is.",
        ],
        footer: `You receive this because a password reset was requested for your ${PRODUCT_NAME} account.`,
      }),
    };
  },

  passwordChanged(input: { to: string; name: string; signInUrl: string }): MailMessage {
    return {
      to: input.to,
      kind: "password_changed",
      ...composeMail({
        subject: `Your ${PRODUCT_NAME} password was changed`,
        heading: "Your password was changed",
        paragraphs: [
          `Hello ${input.name},`,
          "The password of your account was just reset with a link sent to this address, and every other session was signed out.",
        ],
        action: { label: "Sign in", url: input.signInUrl },
        after: [
          "If this was not you, reset your password again at once and check the account's e-mail address.",
        ],
        footer: `A security notice about your ${PRODUCT_NAME} account.`,
      }),
    };
  },

  confirmEmail(input: { to: string; name: string; link: string; validHours: number }): MailMessage {
    return {
      to: input.to,
      kind: "email_change_confirm",
      ...composeMail({
        subject: `Confirm your new ${PRODUCT_NAME} sign-in address`,
        heading: "Confirm your new e-mail address",
        paragraphs: [
          `Hello ${input.name},`,
          `You asked to sign in to ${PRODUCT_NAME} with this address. It takes effect once you confirm it.`,
        ],
        action: { label: "Confirm this address", url: input.link },
        after: [
          `The link works once, for ${input.validHours} hours. Until then you keep signing in with your current address.`,
          "If you did not ask for this, ignore this message: nothing changes.",
        ],
        footer: `You receive this because this address was entered as a new sign-in address for a ${PRODUCT_NAME} account.`,
      }),
    };
  },

  emailChangeRequested(input: {
    to: string;
    name: string;
    newEmail: string;
    accountUrl: string;
  }): MailMessage {
    return {
      to: input.to,
      kind: "email_change_notice",
      ...composeMail({
        subject: `A new sign-in address was requested for your ${PRODUCT_NAME} account`,
        heading: "Your sign-in address may change",
        paragraphs: [
          `Hello ${input.name},`,
          `Someone signed in to your account asked to change its sign-in address to ${input.newEmail}. It changes only once the link sent to that address is opened.`,
        ],
        action: { label: "Review your account", url: input.accountUrl },
        after: [
          "If this was not you, change your password now: whoever asked knows it. Changing it also signs out every other session.",
        ],
        footer: `A security notice about your ${PRODUCT_NAME} account, sent to its current address.`,
      }),
    };
  },

  emailChanged(input: { to: string; name: string; newEmail: string }): MailMessage {
    return {
      to: input.to,
      kind: "email_changed",
      ...composeMail({
        subject: `Your ${PRODUCT_NAME} sign-in address was changed`,
        heading: "Your sign-in address was changed",
        paragraphs: [
          `Hello ${input.name},`,
          `Your account now signs in with ${input.newEmail}. Messages about it go there from now on.`,
          "If this was not you, contact the platform's operator: this address no longer controls the account.",
        ],
        footer: `A last security notice to your previous ${PRODUCT_NAME} sign-in address.`,
      }),
    };
  },
};
