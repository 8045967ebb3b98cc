import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client.ts";
import { useCursorList } from "../api/lists.ts";
import { useStores } from "../api/session.ts";
import type { Discount } from "../api/types.ts";
import { CursorTable } from "../components/list.tsx";
import {
  Badge,
  Field,
  FormActions,
  FormAlert,
  PageHeader,
  Panel,
  TextField,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import {
  DISCOUNT_KIND_NAMES,
  DISCOUNT_KINDS,
  DISCOUNT_STATUSES,
  DiscountCode,
  type DiscountKind,
  DiscountStatus,
  Money,
  PAGE_SIZE,
  Rate,
  Scope,
} from "../contract.ts";
import { money, when } from "../lib/format.ts";
import { useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

/** What a code takes, in words: "10 % off", "5.00 USD off each item", "Free shipping". */
function terms(d: Discount, currency: string): string {
  if (d.kind === "percentage") return `${d.percentage} % off`;
  if (d.kind === "fixed_amount")
    return `${money(d.value ?? "0", currency)} off${d.allocation === "each" ? " each item" : ""}`;
  return "Free shipping";
}

/** "3 of 100", "3 (no limit)". */
const usage = (d: Discount) =>
  d.usageLimit === null ? `${d.timesUsed} (no limit)` : `${d.timesUsed} of ${d.usageLimit}`;

export function DiscountsPage() {
  const slug = useSlug();
  const queryClient = useQueryClient();
  const notify = useNotify();
  const currency = useStores().data?.find((s) => s.slug === slug)?.currency ?? "";
  const list = useCursorList<Discount>(["discounts", slug, "list"], (cursor) =>
    unwrap<Discount[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/stores/{slug}/discounts", {
        params: { path: { slug }, query: { limit: PAGE_SIZE.dashboard, cursor } },
      }),
    ),
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["discounts", slug] });

  async function toggle(d: Discount) {
    const status = d.status === DiscountStatus.active ? DiscountStatus.paused : DiscountStatus.active;
    try {
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
          params: { path: { slug, id: d.id } },
          body: { status },
        }),
      );
      notify(`${d.code} ${status === DiscountStatus.paused ? "paused" : "resumed"}`);
      await refresh();
    } catch {
      notify("Changing the code failed.", "error");
    }
  }

  return (
    <>
      <PageHeader
        title="Discounts"
        subtitle="Codes your customers enter: a percentage, an amount or free shipping, with the limits you set."
      />
      <Panel label="Discount codes">
        <CursorTable
          list={list}
          noun="discount codes"
          empty="No discount codes yet. Make your first one below."
          headers={["Code", "Discount", "Status", { label: "Used", num: true }, "Ends", ""]}
        >
          {(d) => (
            <tr key={d.id}>
              <td data-label="Code" className="strong mono user-text">
                {d.code}
              </td>
              <td data-label="Discount">
                {terms(d, currency)}
                {d.minimumSubtotal ? ` · from ${money(d.minimumSubtotal, currency)}` : ""}
                {d.oncePerCustomer ? " · once per customer" : ""}
              </td>
              <td data-label="Status">
                <Badge value={d.status} label={DISCOUNT_STATUSES[d.status].label} />
              </td>
              <td data-label="Used" className="num">
                {usage(d)}
              </td>
              <td data-label="Ends" className="small">
                {d.endsAt ? when(d.endsAt) : "Never"}
              </td>
              <td data-label="">
                <button type="button" className="secondary" onClick={() => toggle(d)}>
                  {d.status === DiscountStatus.active ? `Pause ${d.code}` : `Resume ${d.code}`}
                </button>
              </td>
            </tr>
          )}
        </CursorTable>
      </Panel>
      <Panel title="New discount code">
        <DiscountForm slug={slug} currency={currency} onSaved={refresh} />
      </Panel>
    </>
  );
}

/** A new code: its kind and value, an optional minimum, a usage limit and the once-per-customer rule. */
function DiscountForm(props: { slug: string; currency: string; onSaved: () => unknown }) {
  const [code, setCode] = useState("");
  const [kind, setKind] = useState<DiscountKind>("percentage");
  const [percentage, setPercentage] = useState("");
  const [value, setValue] = useState("");
  const [minimum, setMinimum] = useState("");
  const [limit, setLimit] = useState("");
  const [once, setOnce] = useState(false);
  const [combinable, setCombinable] = useState(false);
  const notify = useNotify();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({ failure: "Saving the code failed.", answered });
  const submit = handle(
    () => [
      ...validate([["code", DiscountCode, code.trim()]]),
      ...(kind === "percentage" ? validate([["percentage", Rate, percentage.trim()]]) : []),
      ...(kind === "fixed_amount" ? validate([["value", Money, value.trim()]]) : []),
      ...(minimum.trim() ? validate([["minimumSubtotal", Money, minimum.trim()]]) : []),
      ...(limit.trim() && !/^[1-9]\d{0,8}$/.test(limit.trim())
        ? [{ field: "usageLimit", message: "a whole number from 1" }]
        : []),
    ],
    async () => {
      const saved = (
        await unwrap<Discount>(
          api.POST("/api/v1/dashboard/stores/{slug}/discounts", {
            params: { path: { slug: props.slug } },
            body: {
              code: code.trim(),
              kind,
              ...(kind === "percentage" ? { percentage: percentage.trim() } : {}),
              ...(kind === "fixed_amount" ? { value: value.trim() } : {}),
              ...(minimum.trim() ? { minimumSubtotal: minimum.trim() } : {}),
              ...(limit.trim() ? { usageLimit: Number(limit.trim()) } : {}),
              oncePerCustomer: once,
              combinable,
            },
            headers: { "idempotency-key": key },
          }),
        )
      ).data;
      notify(`${saved.code} created`);
      setCode("");
      setPercentage("");
      setValue("");
      setMinimum("");
      setLimit("");
      await props.onSaved();
    },
  );
  const error = (field: string) => errors.fields.find((f) => f.field === field)?.message ?? null;
  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label="Code"
        value={code}
        onChange={setCode}
        error={error("code")}
        hint="Letters, digits, - and _; customers may type it in any case."
        maxLength={50}
        required
      />
      <Field label="Kind">
        {({ id }) => (
          <select id={id} value={kind} onChange={(e) => setKind(e.target.value as DiscountKind)}>
            {DISCOUNT_KIND_NAMES.map((k) => (
              <option key={k} value={k}>
                {DISCOUNT_KINDS[k].label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {kind === "percentage" ? (
        <TextField
          label="Percentage off"
          value={percentage}
          onChange={setPercentage}
          error={error("percentage")}
          inputMode="decimal"
          placeholder="10"
        />
      ) : null}
      {kind === "fixed_amount" ? (
        <TextField
          label={`Amount off (${props.currency})`}
          value={value}
          onChange={setValue}
          error={error("value")}
          inputMode="decimal"
          placeholder="5.00"
        />
      ) : null}
      <TextField
        label={`Minimum subtotal (${props.currency}, optional)`}
        value={minimum}
        onChange={setMinimum}
        error={error("minimumSubtotal")}
        inputMode="decimal"
      />
      <TextField
        label="Usage limit (optional)"
        value={limit}
        onChange={setLimit}
        error={error("usageLimit")}
        inputMode="numeric"
        hint="How many orders may use it in all."
      />
      <label className="check">
        <input type="checkbox" checked={once} onChange={(e) => setOnce(e.target.checked)} /> Once per customer
      </label>
      <label className="check">
        <input type="checkbox" checked={combinable} onChange={(e) => setCombinable(e.target.checked)} /> Can
        be combined with other codes
      </label>
      <FormActions busy={busy} label="Create code" />
    </form>
  );
}

export const pages = [
  definePage({
    path: "/stores/:slug/discounts",
    element: <DiscountsPage />,
    storeMenu: { label: "Discounts", order: 25, scope: Scope.read_discounts },
  }),
];
