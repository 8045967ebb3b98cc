import Type, { type TObject, type TProperties, type TSchema } from "typebox";
import { DateTimeInput, StoreSlug, Timestamp } from "../../contracts/fields.ts";
import { PAGE_SIZE } from "../../contracts/limits.ts";
import { Id } from "../../contracts/resources.ts";
import { DISCOUNT_REFUSAL_NAMES, type DiscountRefusal } from "../../contracts/statuses.ts";
import { ERROR_CODES, type ErrorCode } from "../errors.ts";

/** Shared building blocks of every route schema: envelopes, error responses, ids, timestamps, pagination. */

export { Id, StoreSlug, Timestamp };

/** A strict request body: unknown fields are a validation error, not silently dropped. */
export function Body<P extends TProperties>(
  properties: P,
  options: { description?: string; examples?: unknown[] } = {},
) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    error: Type.Object({
      code: Type.Unsafe<ErrorCode>({
        type: "string",
        enum: Object.keys(ERROR_CODES),
        description: "One of the platform's closed list of error codes.",
      }),
      message: Type.String(),
      details: Type.Optional(
        Type.Union([
          Type.Array(
            Type.Object({
              field: Type.String(),
              message: Type.String(),
              reason: Type.Optional(
                Type.Unsafe<DiscountRefusal>({
                  type: "string",
                  enum: [...DISCOUNT_REFUSAL_NAMES],
                  description: "Why a discount code was refused (`DISCOUNT_NOT_APPLICABLE` only).",
                }),
              ),
            }),
          ),
          Type.Object({}, { additionalProperties: true }),
        ]),
      ),
      requestId: Type.String({
        description: "The request's id, also in the `X-Request-Id` header: quote it when asking for support.",
      }),
    }),
  },
  { $id: "Error", title: "Error" },
);

/** Error responses of a route, grouped by status, each documenting which codes it can carry. */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set<ErrorCode>([...codes, "VALIDATION_FAILED", "RATE_LIMITED", "INTERNAL"])) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, TSchema> = {};
  for (const [status, list] of byStatus) {
    const description = list.map((c) => `\`${c}\`: ${ERROR_CODES[c].description}`).join(" ");
    // A reference to the one shared schema (registered by installDocs), described per status.
    out[status] = Type.Unsafe({ $ref: "Error#", description });
  }
  return out;
}

export function Envelope<T extends TSchema>(data: T, description = "Success") {
  return Type.Object({ success: Type.Literal(true), data }, { description });
}

export const CursorMeta = Type.Object({
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: "Pass as `cursor` to get the next page; null on the last page.",
  }),
  limit: Type.Integer(),
});

export function CursorPage<T extends TSchema>(item: T, description = "One page of results") {
  return Type.Object(
    { success: Type.Literal(true), data: Type.Array(item), meta: CursorMeta },
    { description },
  );
}

/** A list's page size parameter, from its size in the contract. */
export function PageLimit(size: { default: number; max: number }) {
  return Type.Integer({
    minimum: 1,
    maximum: size.max,
    default: size.default,
    description: `Page size, 1 to ${size.max} (default ${size.default}).`,
  });
}

export const CursorQuery = {
  limit: PageLimit(PAGE_SIZE.cursor),
  cursor: Type.Optional(
    Type.String({
      maxLength: 512,
      description: "Opaque cursor from `meta.nextCursor` of the previous page.",
    }),
  ),
  updatedSince: Type.Optional(DateTimeInput("Only records updated at or after this instant.")),
};

export function Params<P extends TProperties>(properties: P): TObject<P> {
  return Type.Object(properties, { additionalProperties: false });
}
