import { timingSafeEqual } from "node:crypto";
import Type from "typebox";
import { Id, MailStatusSchema } from "../../contracts/index.ts";
import { AppError } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Body, Envelope, errorResponses, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import type { MailRepo } from "./mail-repo.ts";

const tags = ["Dashboard: mail outbox"];
const security = [{ mailOutboxCookie: [] }];
export const OUTBOX_COOKIE = "mp_outbox";
const OUTBOX_PAGE_SIZE = 100;

const OutboxItem = Type.Object(
  {
    id: Id("mailMessage"),
    kind: Type.String(),
    to: Type.String(),
    subject: Type.String(),
    status: MailStatusSchema,
    createdAt: Type.String({ format: "date-time" }),
  },
  { title: "OutboxMessageSummary" },
);
const OutboxMessage = Type.Object(
  {
    ...OutboxItem.properties,
    text: Type.String({ description: "The plain-text part." }),
    htmlUrl: Type.String({ description: "Where the HTML part is served, for a sandboxed frame." }),
  },
  { title: "OutboxMessage" },
);

/**
 * The HTML part as its own page: the only styles it may use are its inline ones (mail has no
 * others), nothing runs (sandbox), nothing loads from elsewhere, and only this origin may frame it.
 */
const HTML_HEADERS = {
  "content-security-policy":
    "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/**
 * The local mail outbox, for the operator (whoever runs the service and reads its log): the
 * messages the platform would have e-mailed while no SMTP server is configured. They hold live
 * links (password resets), so no merchant sees them: the start log prints a link with a key derived
 * from the secrets key, and opening it sets a cookie for these routes only. Everything here is 404
 * when mail goes to an SMTP server.
 */
export function outboxRoutes(deps: {
  /** Null when mail goes to an SMTP server: then there is no outbox to open. */
  key: string | null;
  repo: Pick<MailRepo, "list" | "find">;
  secureCookies: boolean;
}): FeatureRoutes {
  const keyBytes = deps.key ? Buffer.from(deps.key) : null;
  const matches = (presented: string | undefined) => {
    if (!keyBytes || !presented) return false;
    const given = Buffer.from(presented);
    return given.length === keyBytes.length && timingSafeEqual(given, keyBytes);
  };
  const cookiePath = "/api/v1/dashboard/mail-outbox";
  const notFound = () =>
    new AppError("NOT_FOUND", { message: "There is no local mail outbox: mail goes to the SMTP server." });
  const guard = async (request: { cookies: Record<string, string | undefined> }) => {
    if (!keyBytes) throw notFound();
    if (!matches(request.cookies[OUTBOX_COOKIE]))
      throw new AppError("UNAUTHENTICATED", {
        message: "Open the outbox with the link the start log prints.",
      });
  };
  return {
    tags: {
      "Dashboard: mail outbox":
        "The local mail outbox: what the platform would have e-mailed, kept for the operator while no SMTP server is configured (`SMTP_URL`).",
    },
    account(app: App) {
      app.post(
        "/mail-outbox/session",
        {
          schema: {
            operationId: "dashboardOpenMailOutbox",
            security: [],
            tags,
            summary: "Open the local mail outbox with the operator's key",
            description:
              "`key` is the one in the outbox link the start log prints. Sets the `mp_outbox` cookie (HttpOnly, SameSite=Strict, for the outbox's routes only). A wrong key is 401 and throttled like other random credentials; 404 when mail goes to an SMTP server.",
            body: Body({ key: Type.String({ minLength: 1, maxLength: 100 }) }),
            response: {
              200: Envelope(Type.Object({ opened: Type.Literal(true) })),
              ...errorResponses("UNAUTHENTICATED", "NOT_FOUND"),
            },
          },
        },
        async (request, reply) => {
          if (!keyBytes) throw notFound();
          if (!matches(request.body.key))
            throw new AppError("UNAUTHENTICATED", { message: "This is not the outbox's key." });
          reply.setCookie(OUTBOX_COOKIE, deps.key!, {
            path: cookiePath,
            httpOnly: true,
            sameSite: "strict",
            secure: deps.secureCookies,
          });
          return { success: true as const, data: { opened: true as const } };
        },
      );

      app.get(
        "/mail-outbox",
        {
          schema: {
            operationId: "dashboardListMailOutbox",
            security,
            tags,
            summary: "The newest messages of the local mail outbox",
            description: `The ${OUTBOX_PAGE_SIZE} newest messages, newest first (they are kept MAIL_RETENTION_DAYS). 401 without the outbox cookie; 404 when mail goes to an SMTP server.`,
            response: {
              200: Envelope(Type.Array(OutboxItem, { maxItems: OUTBOX_PAGE_SIZE })),
              ...errorResponses("UNAUTHENTICATED", "NOT_FOUND"),
            },
          },
        },
        async (request) => {
          await guard(request);
          const rows = await deps.repo.list({ limit: OUTBOX_PAGE_SIZE });
          return {
            success: true as const,
            data: rows.map((r) => ({
              id: r.id,
              kind: r.kind,
              to: r.to_address,
              subject: r.subject,
              status: r.status,
              createdAt: r.created_at.toISOString(),
            })),
          };
        },
      );

      app.get(
        "/mail-outbox/:id",
        {
          schema: {
            operationId: "dashboardGetMailOutboxMessage",
            security,
            tags,
            summary: "One message of the local mail outbox",
            description: "Its text part, and where its HTML part is served. 401 without the outbox cookie.",
            params: Params({ id: Id("mailMessage") }),
            response: {
              200: Envelope(OutboxMessage),
              ...errorResponses("UNAUTHENTICATED", "NOT_FOUND"),
            },
          },
        },
        async (request) => {
          await guard(request);
          const row = await deps.repo.find(request.params.id);
          if (!row) throw new AppError("NOT_FOUND");
          return {
            success: true as const,
            data: {
              id: row.id,
              kind: row.kind,
              to: row.to_address,
              subject: row.subject,
              status: row.status,
              createdAt: row.created_at.toISOString(),
              text: row.text_body,
              htmlUrl: `${cookiePath}/${row.id}/html`,
            },
          };
        },
      );

      // The HTML part, as a page for a sandboxed frame (not an API operation).
      app.get(
        "/mail-outbox/:id/html",
        { schema: { hide: true, params: Params({ id: Id("mailMessage") }) } },
        async (request, reply) => {
          await guard(request);
          const row = await deps.repo.find(request.params.id);
          if (!row) throw new AppError("NOT_FOUND");
          return reply.headers(HTML_HEADERS).type("text/html; charset=utf-8").send(row.html_body);
        },
      );
    },
  };
}
