import addressFormatter from "@fragaria/address-formatter";
import type { FieldError } from "../api/client.ts";
import type { Address, AddressInput } from "../api/types.ts";
import { AddressFields, COUNTRY_CODES, CountryCode, Phone } from "../contract.ts";
import { validate } from "../lib/validate.ts";
import { Field, TextField } from "./ui.tsx";

/** An address being edited: every part as the text in its box. */
export interface AddressDraft {
  name: string;
  company: string;
  line1: string;
  line2: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
  phone: string;
}

const regionNames = new Intl.DisplayNames(undefined, { type: "region" });
/** "Saudi Arabia" for SA, in the browser's language. */
export function countryName(code: string): string {
  return regionNames.of(code) ?? code;
}
/** The contract's countries, by name. */
const COUNTRIES = [...COUNTRY_CODES]
  .map((code) => ({ code, name: countryName(code) }))
  .sort((a, b) => a.name.localeCompare(b.name));

export function emptyAddress(name = "", country = ""): AddressDraft {
  return {
    name,
    company: "",
    line1: "",
    line2: "",
    city: "",
    region: "",
    postalCode: "",
    country,
    phone: "",
  };
}

export function draftOf(a: Address | null | undefined, fallbackName = ""): AddressDraft {
  if (!a) return emptyAddress(fallbackName);
  return {
    name: a.name,
    company: a.company ?? "",
    line1: a.line1,
    line2: a.line2 ?? "",
    city: a.city,
    region: a.region ?? "",
    postalCode: a.postalCode ?? "",
    country: a.country,
    phone: a.phone ?? "",
  };
}

/** Whether nothing has been typed (an optional address left empty). */
export function isBlank(d: AddressDraft): boolean {
  return [d.company, d.line1, d.line2, d.city, d.region, d.postalCode, d.phone].every((v) => v.trim() === "");
}

/** The body the API takes: parts trimmed, empty optional parts left out. */
export function addressBody(d: AddressDraft): AddressInput {
  const optional = (v: string) => (v.trim() ? v.trim() : undefined);
  const body: Record<string, string | undefined> = {
    name: d.name.trim(),
    company: optional(d.company),
    line1: d.line1.trim(),
    line2: optional(d.line2),
    city: d.city.trim(),
    region: optional(d.region),
    postalCode: optional(d.postalCode),
    country: d.country,
    phone: optional(d.phone),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as AddressInput;
}

/** The contract's rules for each part, errors named `<prefix>.<part>` as the server names them. */
export function addressErrors(prefix: string, d: AddressDraft): FieldError[] {
  const b = addressBody(d);
  const at = (part: string) => `${prefix}.${part}`;
  return validate([
    [at("name"), AddressFields.name, b.name],
    [at("line1"), AddressFields.line1, b.line1],
    [at("city"), AddressFields.city, b.city],
    [at("country"), CountryCode, b.country],
    ...(b.company ? ([[at("company"), AddressFields.company, b.company]] as const) : []),
    ...(b.line2 ? ([[at("line2"), AddressFields.line2, b.line2]] as const) : []),
    ...(b.region ? ([[at("region"), AddressFields.region, b.region]] as const) : []),
    ...(b.postalCode ? ([[at("postalCode"), AddressFields.postalCode, b.postalCode]] as const) : []),
    ...(b.phone ? ([[at("phone"), Phone, b.phone]] as const) : []),
  ]).map((e) => (e.field === at("country") ? { ...e, message: "choose a country" } : e));
}

/** The boxes of one address, each with its label, hint and error beside it. */
export function AddressFieldset(props: {
  legend: string;
  hint?: string;
  value: AddressDraft;
  onChange: (next: AddressDraft) => void;
  errorOf: (field: string) => string | null;
  prefix: string;
}) {
  const { value, onChange } = props;
  const set = (part: keyof AddressDraft) => (v: string) => onChange({ ...value, [part]: v });
  const err = (part: string) => props.errorOf(`${props.prefix}.${part}`);
  return (
    <fieldset className="address wide">
      <legend>{props.legend}</legend>
      {props.hint ? <p className="hint">{props.hint}</p> : null}
      <div className="address-grid">
        <TextField
          label="Recipient"
          value={value.name}
          onChange={set("name")}
          autoComplete="off"
          error={err("name")}
        />
        <TextField
          label="Company"
          value={value.company}
          onChange={set("company")}
          hint="Optional."
          autoComplete="off"
          error={err("company")}
        />
        <TextField
          label="Street and number"
          value={value.line1}
          onChange={set("line1")}
          autoComplete="off"
          error={err("line1")}
        />
        <TextField
          label="Apartment, floor, suite"
          value={value.line2}
          onChange={set("line2")}
          hint="Optional."
          autoComplete="off"
          error={err("line2")}
        />
        <TextField
          label="City"
          value={value.city}
          onChange={set("city")}
          autoComplete="off"
          error={err("city")}
        />
        <TextField
          label="State or region"
          value={value.region}
          onChange={set("region")}
          hint="Optional."
          autoComplete="off"
          error={err("region")}
        />
        <TextField
          label="Postal code"
          value={value.postalCode}
          onChange={set("postalCode")}
          hint="Optional."
          autoComplete="off"
          error={err("postalCode")}
        />
        <Field label="Country" error={err("country")}>
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={value.country}
              onChange={(e) => onChange({ ...value, country: e.target.value })}
            >
              <option value="">Choose a country</option>
              {COUNTRIES.map((c) => (
                <option key={c.code} value={c.code}>
                  {c.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <TextField
          label="Phone for the carrier"
          type="tel"
          value={value.phone}
          onChange={set("phone")}
          hint="Optional."
          autoComplete="off"
          error={err("phone")}
        />
      </div>
    </fieldset>
  );
}

/**
 * An address as a label reads it, one part a line. The city and the region share a line, each in
 * its own <bdi>: a right-to-left override in one turns only itself around, not the other.
 */
export function AddressView({ address }: { address: Address }) {
  const [name, ...rest] = addressLines(address);
  return (
    <address className="address-view">
      <bdi className="strong">{name}</bdi>
      {rest.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: an address's lines in their order
        <bdi key={i}>{l}</bdi>
      ))}
      <span>{countryName(address.country)}</span>
      {address.phone ? <span className="muted">{address.phone}</span> : null}
    </address>
  );
}

/**
 * An address's lines as its country writes them (the name first, the country left out):
 * "Boston, MA 02108" in the United States, "10117 Berlin" in Germany, "Riyadh 12211" in Saudi
 * Arabia, by the OpenCage address templates (@fragaria/address-formatter), not one order for all.
 */
export function addressLines(a: Address): string[] {
  // Each value isolated (FSI … PDI, what <bdi> does): a line joins several of them, and a
  // right-to-left override typed in one (a city) must not reorder the next (the postal code).
  const own = (text: string) => `\u2068${text}\u2069`;
  const name = own(a.name);
  const line1 = own(a.line1);
  const lines = addressFormatter.format(
    {
      attention: name,
      ...(a.company ? { house: own(a.company) } : {}),
      road: line1,
      city: own(a.city),
      ...(a.region ? { state: own(a.region) } : {}),
      ...(a.postalCode ? { postcode: own(a.postalCode) } : {}),
      countryCode: a.country,
    },
    { output: "array", appendCountry: false },
  );
  // The second street line, which the templates have no place for, right after the first.
  if (a.line2) lines.splice(Math.max(lines.indexOf(line1), 0) + 1, 0, own(a.line2));
  return lines[0] === name ? lines : [name, ...lines];
}

/** One line: "Layla Haddad, King Fahd Road 12, Riyadh, Saudi Arabia" (a choice in a list). */
export function addressLine(a: Address): string {
  return [a.name, a.line1, a.city, countryName(a.country)].join(", ");
}
