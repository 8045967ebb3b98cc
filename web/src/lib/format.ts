/**
 * Amounts come as decimal strings in the store's currency; shown exactly, with thousands grouped and
 * the code, e.g. "3,585.80 USD" (the string's digits are never turned into a float).
 */
export function money(amount: string, currency: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
  if (!match) return `${amount} ${currency}`;
  const [, sign, whole, fraction = ""] = match;
  return `${sign}${BigInt(whole!).toLocaleString("en")}${fraction} ${currency}`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
export function when(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : "—";
}

/** "Layla Haddad", or the e-mail when there is no name. */
export function personName(c: { firstName: string; lastName: string; email?: string }): string {
  return `${c.firstName} ${c.lastName}`.trim() || (c.email ?? "");
}

/** A store slug from a name: lowercase letters, digits and single hyphens. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
}
