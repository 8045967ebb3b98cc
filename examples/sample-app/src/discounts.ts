import { type AdminClient, type Components, PlatformError, unwrap } from "@merchant-platform/sdk";
import { hidden, html } from "./html.ts";

/**
 * A welcome discount: a percentage code with a usage limit, made through the Admin API
 * (`write_discounts`), and the codes this app made listed with their usage (`read_discounts`).
 */
export type Discount = Components["schemas"]["Discount"];

export interface WelcomeDiscount {
  code: string;
  /** The share taken, as the API writes it: "10" is 10 %. */
  percentage: string;
  usageLimit: number | null;
  oncePerCustomer: boolean;
}

/** The form's fields; the platform validates them again (the code's characters, the percentage's range). */
export function welcomeDiscountOf(form: URLSearchParams): WelcomeDiscount {
  const limit = form.get("usageLimit")?.trim() ?? "";
  if (limit !== "" && !/^[1-9]\d{0,8}$/.test(limit)) throw new Error(`Not a usage limit: ${limit}`);
  return {
    code: form.get("code")?.trim() ?? "",
    percentage: form.get("percentage")?.trim() ?? "",
    usageLimit: limit === "" ? null : Number(limit),
    oncePerCustomer: form.get("oncePerCustomer") === "on",
  };
}

export function createWelcomeDiscount(admin: AdminClient, input: WelcomeDiscount) {
  return unwrap(admin.POST("/api/v1/apps/api/discounts", { body: { kind: "percentage", ...input } }));
}

/**
 * The codes this app made, as the platform has them now (their `timesUsed`). The list of the
 * store's codes has no filter by who made them, so the app keeps its own ids; a code the merchant
 * deleted since answers 404 and is reported as gone.
 */
export async function appDiscounts(
  admin: AdminClient,
  ids: readonly string[],
): Promise<Array<{ id: string; discount?: Discount; error?: PlatformError }>> {
  return Promise.all(
    ids.map(async (id) => {
      try {
        return {
          id,
          discount: await unwrap(admin.GET("/api/v1/apps/api/discounts/{id}", { params: { path: { id } } })),
        };
      } catch (error) {
        if (error instanceof PlatformError) return { id, error };
        throw error;
      }
    }),
  );
}

/** The section on `/`: the form (one per installed store) and the app's codes with their usage. */
export function discountsSection(
  stores: Array<{ slug: string; codes: Awaited<ReturnType<typeof appDiscounts>> }>,
): string {
  const rows = stores.flatMap(({ slug, codes }) =>
    codes.map(({ id, discount: d, error }) =>
      d
        ? `<tr><td>${html(slug)}</td><td><b>${html(d.code)}</b></td><td>${html(d.percentage ?? "")} %</td><td>${d.timesUsed}${d.usageLimit === null ? "" : ` of ${d.usageLimit}`}${d.oncePerCustomer ? " <small>(once per customer)</small>" : ""}</td><td>${html(d.status)}</td></tr>`
        : `<tr><td>${html(slug)}</td><td><code>${html(id)}</code></td><td colspan="3">${error?.code === "NOT_FOUND" ? "deleted in the store" : html(`${error?.code}: ${error?.message}`)}</td></tr>`,
    ),
  );
  const forms = stores
    .map(
      ({ slug }) =>
        `<form method="post" action="/discounts">${hidden({ store: slug })}<b>${html(slug)}</b>: <input name="code" value="WELCOME10" required maxlength="50" pattern="[A-Za-z0-9][A-Za-z0-9_\\-]*" aria-label="Code"> <input name="percentage" value="10" required size="4" aria-label="Percentage"> % off, <input name="usageLimit" type="number" min="1" value="100" size="6" aria-label="Usage limit"> uses <label><input type="checkbox" name="oncePerCustomer" checked> once per customer</label> <button>Create welcome discount</button></form>`,
    )
    .join("");
  return `<h2>Welcome discounts</h2>
${forms || "<p>Install the app in a store first.</p>"}
<table><tr><th>Store</th><th>Code</th><th>Off</th><th>Used</th><th>Status</th></tr>${rows.join("") || '<tr><td colspan="5">No code made by this app yet.</td></tr>'}</table>`;
}
