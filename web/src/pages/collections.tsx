import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { ApiError, api, unwrap } from "../api/client.ts";
import { useCursorList } from "../api/lists.ts";
import { useStores } from "../api/session.ts";
import type { Collection, CollectionRule, CollectionSort, Product, SortLabels } from "../api/types.ts";
import { CursorTable } from "../components/list.tsx";
import {
  Badge,
  Empty,
  Field,
  FormActions,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  TextField,
  useConfirm,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import {
  COLLECTION_KIND_NAMES,
  COLLECTION_KINDS,
  COLLECTION_MATCH_NAMES,
  COLLECTION_MATCHES,
  COLLECTION_RULE_FIELD_NAMES,
  COLLECTION_RULE_FIELDS,
  type CollectionKind,
  type CollectionMatch,
  type CollectionRuleField,
  CollectionTitle,
  MAX_COLLECTION_PRODUCTS,
  MAX_COLLECTION_RULES,
  Money,
  PAGE_SIZE,
  PRODUCT_STATUSES,
  ProductDescription,
  type RuleRelation,
  Scope,
} from "../contract.ts";
import { when } from "../lib/format.ts";
import { searchParam, useDebounced, useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { useListState } from "../lib/list-state.ts";
import { definePage } from "../lib/page.ts";
import { fieldError, validate } from "../lib/validate.ts";
import { priceRange } from "./products.tsx";

const SORTS: SortLabels<CollectionSort> = {
  "-createdAt": "Newest first",
  createdAt: "Oldest first",
  "-updatedAt": "Recently changed first",
  updatedAt: "Least recently changed first",
  title: "Title, A to Z",
  "-title": "Title, Z to A",
};

/** A rule's relation in words ("Tag is summer", "Price is greater than 20.00"). */
const RELATIONS: Readonly<Record<RuleRelation, string>> = {
  equals: "is",
  not_equals: "is not",
  contains: "contains",
  starts_with: "starts with",
  greater_than: "is greater than",
  less_than: "is less than",
};

/** The relations a field allows (the contract's list, in its order). */
const relationsOf = (field: CollectionRuleField): readonly RuleRelation[] =>
  COLLECTION_RULE_FIELDS[field].relations;

/** "Tag is “summer”", "Price is greater than 20.00 USD". */
function ruleText(rule: CollectionRule, currency: string): string {
  const value = rule.field === "price" ? `${rule.value} ${currency}`.trim() : `“${rule.value}”`;
  return `${COLLECTION_RULE_FIELDS[rule.field].label} ${RELATIONS[rule.relation]} ${value}`;
}

export function CollectionsPage() {
  const slug = useSlug();
  const navigate = useNavigate();
  const state = useListState({ sorts: SORTS, defaultSort: "-createdAt" });
  const { sort, setSort } = state;
  const queryClient = useQueryClient();
  const currency = useStores().data?.find((s) => s.slug === slug)?.currency ?? "";
  const list = useCursorList<Collection>(
    ["collections", slug, "list", sort],
    (cursor) =>
      unwrap<Collection[], { nextCursor: string | null }>(
        api.GET("/api/v1/dashboard/stores/{slug}/collections", {
          params: { path: { slug }, query: { limit: PAGE_SIZE.dashboard, cursor, sort } },
        }),
      ),
    { pages: state.pages, onPages: state.setPages },
  );
  return (
    <>
      <PageHeader
        title="Collections"
        subtitle="Groups of products: a list you put in order, or the products matching your rules."
      />
      <Panel label="Collection list">
        <div className="list-tools">
          <Field label="Sort by">
            {({ id }) => (
              <select id={id} value={sort} onChange={(e) => setSort(e.target.value)}>
                {Object.entries(SORTS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <CursorTable
          list={list}
          noun="collections"
          empty="No collections yet. Make your first one below."
          headers={["Collection", "Kind", { label: "Products", num: true }, "Changed"]}
        >
          {(c) => (
            <tr key={c.id}>
              <td data-label="Collection" className="strong user-text">
                <Link to={`/stores/${slug}/collections/${c.id}`}>{c.title}</Link>
              </td>
              <td data-label="Kind">
                <Badge value={c.kind} label={COLLECTION_KINDS[c.kind].label} />
              </td>
              <td data-label="Products" className="num">
                {c.productsCount}
              </td>
              <td data-label="Changed" className="small">
                {when(c.updatedAt)}
              </td>
            </tr>
          )}
        </CursorTable>
      </Panel>
      <Panel title="New collection">
        <CollectionForm
          slug={slug}
          currency={currency}
          onSaved={async (saved) => {
            await queryClient.invalidateQueries({ queryKey: ["collections", slug] });
            navigate(`/stores/${slug}/collections/${saved.id}`);
          }}
        />
      </Panel>
    </>
  );
}

interface RuleDraft {
  field: CollectionRuleField;
  relation: RuleRelation;
  value: string;
}

const newRule = (): RuleDraft => ({ field: "tag", relation: "equals", value: "" });

/**
 * Create (no `collection`) or edit a collection: its title and description, its kind when new, and
 * an automatic one's rules and match. Checked with the contract's rules first; the server's
 * refusals land on the fields they name (`rules.0.value`).
 */
function CollectionForm(props: {
  slug: string;
  currency: string;
  collection?: Collection;
  onSaved: (saved: Collection) => unknown;
  onCancel?: () => void;
}) {
  const c = props.collection;
  const [title, setTitle] = useState(c?.title ?? "");
  const [description, setDescription] = useState(c?.description ?? "");
  const [kind, setKind] = useState<CollectionKind>(c?.kind ?? "manual");
  const [match, setMatch] = useState<CollectionMatch>(c?.match ?? "all");
  const [rules, setRules] = useState<RuleDraft[]>(() =>
    c?.rules.length ? c.rules.map((r) => ({ ...r })) : [newRule()],
  );
  const notify = useNotify();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({
    failure: "Saving failed.",
    answered: c ? undefined : answered,
  });
  const automatic = kind === "automatic";
  const values = rules.map((r) => ({ ...r, value: r.value.trim() }));
  /** The server's error about one rule (`rules.0.value`), or about the rule as a whole (`rules.0`). */
  const exact = (field: string) => errors.fields.find((f) => f.field === field)?.message ?? null;

  const submit = handle(
    () => [
      ...validate([
        ["title", CollectionTitle, title.trim()],
        ["description", ProductDescription, description],
      ]),
      ...(automatic && values.length === 0
        ? [{ field: "rules", message: "An automatic collection needs at least one rule." }]
        : []),
      ...(automatic
        ? values.flatMap((r, i) => {
            const message =
              r.value === "" ? "is required" : r.field === "price" ? fieldError(Money, r.value) : null;
            return message ? [{ field: `rules.${i}.value`, message }] : [];
          })
        : []),
    ],
    async () => {
      const fields = { title: title.trim(), description };
      let saved: Collection;
      if (c) {
        saved = (
          await unwrap<Collection>(
            api.PATCH("/api/v1/dashboard/stores/{slug}/collections/{id}", {
              params: { path: { slug: props.slug, id: c.id } },
              body: automatic ? { ...fields, match, rules: values } : fields,
            }),
          )
        ).data;
        notify("Changes saved");
      } else {
        saved = (
          await unwrap<Collection>(
            api.POST("/api/v1/dashboard/stores/{slug}/collections", {
              params: { path: { slug: props.slug } },
              body: automatic ? { ...fields, kind, match, rules: values } : { ...fields, kind },
              headers: { "idempotency-key": key },
            }),
          )
        ).data;
        notify(`${saved.title} created`);
      }
      await props.onSaved(saved);
    },
  );

  const change = (i: number, patch: Partial<RuleDraft>) =>
    setRules(
      rules.map((r, j) => {
        if (j !== i) return r;
        const next = { ...r, ...patch };
        // Another field may not allow the relation chosen: its first one instead.
        const allowed = relationsOf(next.field);
        return allowed.includes(next.relation) ? next : { ...next, relation: allowed[0]! };
      }),
    );

  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField label="Title" value={title} onChange={setTitle} error={errors.of("title")} />
      {c ? null : (
        <Field
          label="Kind"
          hint={
            automatic
              ? "Its products are the ones matching its rules, now and later."
              : "You add its products and put them in order."
          }
          error={errors.of("kind")}
        >
          {({ id, describedBy }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={kind}
              onChange={(e) => setKind(e.target.value as CollectionKind)}
            >
              {COLLECTION_KIND_NAMES.map((k) => (
                <option key={k} value={k}>
                  {COLLECTION_KINDS[k].label}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <Field label="Description" hint="Optional." error={errors.of("description")} className="wide">
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            rows={3}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
          />
        )}
      </Field>
      {automatic ? (
        <fieldset className="wide rules">
          <legend>Rules</legend>
          <Field label="Products must match" error={errors.of("match")}>
            {({ id, describedBy }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={match}
                onChange={(e) => setMatch(e.target.value as CollectionMatch)}
              >
                {COLLECTION_MATCH_NAMES.map((m) => (
                  <option key={m} value={m}>
                    {COLLECTION_MATCHES[m].label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {exact("rules") ? (
            <p className="field-error" role="alert">
              {exact("rules")}
            </p>
          ) : null}
          {rules.map((r, i) => (
            <fieldset
              // biome-ignore lint/suspicious/noArrayIndexKey: a rule has no identity but its place (the API names errors by it)
              key={i}
              className="option-row form grid rule-row"
            >
              <legend>Rule {i + 1}</legend>
              <Field label={`Rule ${i + 1} field`} error={errors.of(`rules.${i}.field`)}>
                {({ id, describedBy, invalid }) => (
                  <select
                    id={id}
                    aria-describedby={describedBy}
                    aria-invalid={invalid || undefined}
                    value={r.field}
                    onChange={(e) => change(i, { field: e.target.value as CollectionRuleField })}
                  >
                    {COLLECTION_RULE_FIELD_NAMES.map((f) => (
                      <option key={f} value={f}>
                        {COLLECTION_RULE_FIELDS[f].label}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label={`Rule ${i + 1} relation`} error={errors.of(`rules.${i}.relation`)}>
                {({ id, describedBy, invalid }) => (
                  <select
                    id={id}
                    aria-describedby={describedBy}
                    aria-invalid={invalid || undefined}
                    value={r.relation}
                    onChange={(e) => change(i, { relation: e.target.value as RuleRelation })}
                  >
                    {relationsOf(r.field).map((rel) => (
                      <option key={rel} value={rel}>
                        {RELATIONS[rel]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field
                label={`Rule ${i + 1} value`}
                hint={
                  r.field === "price"
                    ? `An amount in ${props.currency || "the store's currency"}, such as 19.99.`
                    : undefined
                }
                error={errors.of(`rules.${i}.value`) ?? exact(`rules.${i}`)}
              >
                {({ id, describedBy, invalid }) => (
                  <input
                    id={id}
                    value={r.value}
                    inputMode={r.field === "price" ? "decimal" : undefined}
                    aria-describedby={describedBy}
                    aria-invalid={invalid || undefined}
                    onChange={(e) => change(i, { value: e.target.value })}
                  />
                )}
              </Field>
              <div className="field">
                <button
                  type="button"
                  className="secondary"
                  onClick={() => setRules(rules.filter((_, j) => j !== i))}
                >
                  Remove rule {i + 1}
                </button>
              </div>
            </fieldset>
          ))}
          <div>
            <button
              type="button"
              className="secondary"
              disabled={rules.length >= MAX_COLLECTION_RULES}
              onClick={() => setRules([...rules, newRule()])}
            >
              Add a rule
            </button>
          </div>
        </fieldset>
      ) : null}
      <FormActions busy={busy} label={c ? "Save changes" : "Create collection"} onCancel={props.onCancel} />
    </form>
  );
}

/** The focus target that is the search box for products to add (every other is a button's id). */
const SEARCH = "search";

/** Every product id of a manual collection, in its order (all its pages, read now). */
async function allProductIds(slug: string, id: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const { data, meta } = await unwrap<Product[], { nextCursor?: string | null }>(
      api.GET("/api/v1/dashboard/stores/{slug}/collections/{id}/products", {
        params: { path: { slug, id }, query: { limit: PAGE_SIZE.cursor.max, cursor } },
      }),
    );
    ids.push(...data.map((p) => p.id));
    cursor = meta?.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

export function CollectionPage() {
  const slug = useSlug();
  const { id = "" } = useParams();
  const [editing, setEditing] = useState(false);
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const navigate = useNavigate();
  const currency = useStores().data?.find((s) => s.slug === slug)?.currency ?? "";
  const collection = useQuery({
    queryKey: ["collections", slug, "one", id],
    queryFn: async () =>
      (
        await unwrap<Collection>(
          api.GET("/api/v1/dashboard/stores/{slug}/collections/{id}", { params: { path: { slug, id } } }),
        )
      ).data,
  });

  if (collection.isPending) return <Loading what="Loading the collection" />;
  if (!collection.data) {
    return (
      <>
        <PageHeader title="Collection not found" />
        <Link to={`/stores/${slug}/collections`}>Back to collections</Link>
      </>
    );
  }
  const c = collection.data;

  async function remove() {
    const ok = await confirm({
      title: `Delete ${c.title}?`,
      message: "Its products stay in your catalogue; only the collection goes. This cannot be undone.",
      confirmLabel: "Delete collection",
    });
    if (!ok) return;
    try {
      await unwrap(
        api.DELETE("/api/v1/dashboard/stores/{slug}/collections/{id}", { params: { path: { slug, id } } }),
      );
      notify(`${c.title} deleted`);
      queryClient.removeQueries({ queryKey: ["collections", slug, "one", id] });
      await queryClient.invalidateQueries({ queryKey: ["collections", slug, "list"] });
      navigate(`/stores/${slug}/collections`);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Deleting failed.", "error");
    }
  }

  return (
    <>
      <PageHeader
        title={c.title}
        subtitle={
          <>
            <Badge value={c.kind} label={COLLECTION_KINDS[c.kind].label} /> ·{" "}
            <Link to={`/stores/${slug}/collections`}>Back to collections</Link>
          </>
        }
        actions={
          editing ? null : (
            <>
              <button type="button" className="secondary" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" className="danger" onClick={remove}>
                Delete
              </button>
            </>
          )
        }
      />
      {editing ? (
        <Panel title="Edit collection">
          <CollectionForm
            key={c.updatedAt}
            slug={slug}
            currency={currency}
            collection={c}
            onSaved={async () => {
              setEditing(false);
              await queryClient.invalidateQueries({ queryKey: ["collections", slug] });
            }}
            onCancel={() => setEditing(false)}
          />
        </Panel>
      ) : (
        <Panel title="Details">
          <dl className="details">
            <dt>Kind</dt>
            <dd>
              {COLLECTION_KINDS[c.kind].label}:{" "}
              {c.kind === "manual"
                ? "the products you add, in your order"
                : "the products matching its rules"}
            </dd>
            {c.kind === "automatic" ? (
              <>
                <dt>Rules</dt>
                <dd>
                  <p className="small muted">
                    {c.match === "any"
                      ? "A product matches when any rule holds:"
                      : "A product matches when all rules hold:"}
                  </p>
                  <ul className="rule-list">
                    {c.rules.map((r, i) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: a rule has no identity but its place (two may be alike)
                      <li key={i} className="user-text">
                        {ruleText(r, currency)}
                      </li>
                    ))}
                  </ul>
                </dd>
              </>
            ) : null}
            <dt>Products</dt>
            <dd>{c.productsCount}</dd>
            <dt>Description</dt>
            <dd className="user-text note">{c.description || "—"}</dd>
            <dt>Changed</dt>
            <dd>{when(c.updatedAt)}</dd>
          </dl>
        </Panel>
      )}
      {c.kind === "manual" ? (
        <ManualProducts slug={slug} collection={c} />
      ) : (
        <AutomaticProducts slug={slug} collection={c} />
      )}
    </>
  );
}

/** A collection's products, one page at a time, in its order (manual) or newest first (automatic). */
function useCollectionProducts(slug: string, id: string) {
  return useCursorList<Product>(["collections", slug, "one", id, "products"], (cursor) =>
    unwrap<Product[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/stores/{slug}/collections/{id}/products", {
        params: { path: { slug, id }, query: { limit: PAGE_SIZE.dashboard, cursor } },
      }),
    ),
  );
}

function AutomaticProducts({ slug, collection }: { slug: string; collection: Collection }) {
  const list = useCollectionProducts(slug, collection.id);
  return (
    <Panel title="Products">
      <p className="muted small">
        Its products are the ones that match its rules, newest first: a product joins or leaves by itself as
        it comes to match them or stops. Edit the rules to change which products are in it.
      </p>
      <CursorTable
        list={list}
        noun="products"
        empty="No product matches its rules yet."
        headers={["Product", { label: "Price", num: true }, "Status"]}
      >
        {(p) => (
          <tr key={p.id}>
            <td data-label="Product" className="strong user-text">
              <Link to={`/stores/${slug}/products/${p.id}`}>{p.title}</Link>
            </td>
            <td data-label="Price" className="num">
              {priceRange(p)}
            </td>
            <td data-label="Status">
              <Badge value={p.status} label={PRODUCT_STATUSES[p.status].label} />
            </td>
          </tr>
        )}
      </CursorTable>
    </Panel>
  );
}

/**
 * A manual collection's products in its order: moved up or down, removed, and added from a search
 * of the store's products. Each change sends the whole new order (read afresh first, so what
 * another tab changed meanwhile is kept), and the keyboard stays where the merchant was.
 */
function ManualProducts({ slug, collection }: { slug: string; collection: Collection }) {
  const id = collection.id;
  const queryClient = useQueryClient();
  const notify = useNotify();
  const prefix = useId();
  const searchRef = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState("");
  const pq = useDebounced(query.trim());
  const busy = useRef(false);
  const [sending, setSending] = useState(false);
  /** The button to focus once the list read after a change (`since`) is drawn. */
  const [focusNext, setFocusNext] = useState<{ id: string; since: number } | null>(null);
  const list = useCollectionProducts(slug, id);
  const members = useQuery({
    queryKey: ["collections", slug, "one", id, "ids"],
    queryFn: () => allProductIds(slug, id),
  });
  const found = useQuery({
    queryKey: ["products", slug, "collection-picker", pq],
    queryFn: async () =>
      (
        await unwrap<Product[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug }, query: { limit: 8, q: searchParam(pq) } },
          }),
        )
      ).data,
  });

  // After a change the rows are drawn again: the keyboard goes back to the button it was on (or
  // its neighbour's, when that one is gone or can no longer be used).
  const items = list.items;
  const drawn = list.isFetching ? 0 : list.dataUpdatedAt;
  useEffect(() => {
    if (!focusNext || drawn < focusNext.since) return;
    (focusNext.id === SEARCH ? searchRef.current : document.getElementById(focusNext.id))?.focus();
    setFocusNext(null);
  }, [focusNext, drawn]);

  const buttonId = (what: "up" | "down" | "remove", productId: string) => `${prefix}-${what}-${productId}`;

  /** Sends the collection's new order, made from its current one; `focus` is the control to focus then. */
  async function change(make: (ids: string[]) => { ids: string[]; done: string; focus: string } | null) {
    if (busy.current) return;
    busy.current = true;
    setSending(true);
    try {
      const next = make(await allProductIds(slug, id));
      if (!next) return;
      await unwrap(
        api.PUT("/api/v1/dashboard/stores/{slug}/collections/{id}/products", {
          params: { path: { slug, id } },
          body: { productIds: next.ids },
        }),
      );
      setFocusNext({ id: next.focus, since: Date.now() });
      notify(next.done);
      await queryClient.invalidateQueries({ queryKey: ["collections", slug] });
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Saving the collection's products failed.", "error");
    } finally {
      busy.current = false;
      setSending(false);
    }
  }

  const move = (p: Product, delta: -1 | 1) =>
    change((ids) => {
      const i = ids.indexOf(p.id);
      const j = i + delta;
      if (i < 0 || j < 0 || j >= ids.length) return null;
      const next = [...ids];
      [next[i], next[j]] = [next[j]!, next[i]!];
      // At an end its button in that direction is disabled: the other one then.
      const end = j === 0 || j === ids.length - 1;
      const dir = delta < 0 ? "up" : "down";
      const other = delta < 0 ? "down" : "up";
      return {
        ids: next,
        done: `${p.title} moved ${dir} to position ${j + 1}`,
        focus: buttonId(end ? other : dir, p.id),
      };
    });

  const remove = (p: Product, index: number) =>
    change((ids) => {
      const neighbour = items[index + 1] ?? items[index - 1];
      return {
        ids: ids.filter((x) => x !== p.id),
        done: `${p.title} removed from ${collection.title}`,
        focus: neighbour ? buttonId("remove", neighbour.id) : SEARCH,
      };
    });

  const add = (p: Product) =>
    change((ids) =>
      ids.includes(p.id)
        ? null
        : { ids: [...ids, p.id], done: `${p.title} added to ${collection.title}`, focus: SEARCH },
    );

  const inCollection = new Set(members.data ?? []);
  const full = collection.productsCount >= MAX_COLLECTION_PRODUCTS;
  return (
    <Panel title="Products">
      <p className="muted small">
        In the order customers and apps see them. Move a product up or down to change it.
      </p>
      <div aria-busy={sending || undefined}>
        <CursorTable
          list={list}
          noun="products"
          empty="No products in this collection yet. Find one below to add it."
          headers={[
            { label: "Position", num: true },
            "Product",
            { label: "Price", num: true },
            "Status",
            "Actions",
          ]}
        >
          {(p) => {
            const index = items.indexOf(p);
            const last = index === items.length - 1 && !list.hasNextPage;
            return (
              <tr key={p.id}>
                <td data-label="Position" className="num">
                  {index + 1}
                </td>
                <td data-label="Product" className="strong user-text">
                  <Link to={`/stores/${slug}/products/${p.id}`}>{p.title}</Link>
                </td>
                <td data-label="Price" className="num">
                  {priceRange(p)}
                </td>
                <td data-label="Status">
                  <Badge value={p.status} label={PRODUCT_STATUSES[p.status].label} />
                </td>
                <td className="cell-actions">
                  <button
                    type="button"
                    className="secondary"
                    id={buttonId("up", p.id)}
                    disabled={index === 0}
                    onClick={() => move(p, -1)}
                  >
                    Move up<span className="visually-hidden"> {p.title}</span>
                  </button>
                  <button
                    type="button"
                    className="secondary"
                    id={buttonId("down", p.id)}
                    disabled={last}
                    onClick={() => move(p, 1)}
                  >
                    Move down<span className="visually-hidden"> {p.title}</span>
                  </button>
                  <button
                    type="button"
                    className="danger"
                    id={buttonId("remove", p.id)}
                    onClick={() => remove(p, index)}
                  >
                    Remove<span className="visually-hidden"> {p.title}</span>
                  </button>
                </td>
              </tr>
            );
          }}
        </CursorTable>
      </div>
      <h3 className="section-title">Add a product</h3>
      <Field label="Find a product" hint="By title or SKU, 3 characters or more; the newest are shown first.">
        {({ id: inputId, describedBy }) => (
          <input
            id={inputId}
            ref={searchRef}
            type="search"
            aria-describedby={describedBy}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        )}
      </Field>
      {found.isPending ? (
        <Loading what="Finding products" />
      ) : found.data?.length ? (
        <ul className="pick-list" aria-label="Products found">
          {found.data.map((p) => {
            const added = inCollection.has(p.id);
            return (
              <li key={p.id}>
                <span>
                  <bdi className="strong">{p.title}</bdi>{" "}
                  <span className="muted small">
                    {priceRange(p)} · {PRODUCT_STATUSES[p.status].label}
                  </span>
                </span>
                <button
                  type="button"
                  className="secondary"
                  disabled={added || full || members.isPending}
                  onClick={() => add(p)}
                >
                  {added ? "Added" : "Add"}
                  <span className="visually-hidden"> {p.title}</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : (
        <Empty>
          {searchParam(pq) ? (
            `No product matches “${pq}”.`
          ) : (
            <>
              No products yet. <Link to={`/stores/${slug}/products`}>Add a product</Link>
            </>
          )}
        </Empty>
      )}
    </Panel>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/collections",
    element: <CollectionsPage />,
    storeMenu: { label: "Collections", order: 35, scope: Scope.read_products },
  }),
  definePage({ path: "/stores/:slug/collections/:id", element: <CollectionPage /> }),
];
