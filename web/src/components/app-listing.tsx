import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useLayoutEffect, useRef, useState } from "react";
import { api, unwrap } from "../api/client.ts";
import type { AppInfo, AppListing, DirectoryEntry } from "../api/types.ts";
import {
  APP_ICON_COLOR_NAMES,
  APP_ICON_COLORS,
  APP_LISTING_STATUSES,
  type AppIconColor,
  AppListingStatus,
  AppUrl,
  INSTALLATION_STATUSES,
  InstallationStatus,
  ListingDescription,
  ListingTagline,
  SupportEmail,
} from "../contract.ts";
import { when } from "../lib/format.ts";
import { validate } from "../lib/validate.ts";
import { ScopeList } from "./scopes.tsx";
import { Badge, Field, FormAlert, Loading, Panel, TextField, useNotify, useSubmit } from "./ui.tsx";

/** Up to two initials of an app's name (whole characters, not halves of a surrogate pair). */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const first = (word: string | undefined) => (word ? (Array.from(word)[0] ?? "") : "");
  return (first(words[0]) + first(words[1])).toLocaleUpperCase() || "?";
}

/**
 * The app's icon: its initials on the colour the developer chose (no image is uploaded or
 * fetched, docs/decisions.md). Decorative: the name is always written beside it.
 */
export function AppIcon({ name, color }: { name: string; color: AppIconColor }) {
  return (
    <span className={`app-icon app-icon-${color}`} aria-hidden="true">
      {initials(name)}
    </span>
  );
}

/**
 * Where Install and Open app send the merchant: the app's URL with `store=<slug>` added. Only an
 * http(s) address becomes a link (the server already refuses anything else).
 */
export function appLink(appUrl: string, slug: string): string | null {
  let url: URL;
  try {
    url = new URL(appUrl);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  url.searchParams.set("store", slug);
  return url.toString();
}

/** The host an app's buttons lead to, said on its card: the merchant sees where Install goes. */
function hostOf(appUrl: string): string {
  try {
    return new URL(appUrl).host;
  } catch {
    return "";
  }
}

/** A mailto: link that cannot carry headers (`?cc=`) in the address's local part. */
function mailto(address: string): string {
  const at = address.lastIndexOf("@");
  return `mailto:${encodeURIComponent(address.slice(0, at))}@${address.slice(at + 1)}`;
}

/**
 * One app in the directory. Every text is the developer's and is shown as text (React escapes it;
 * <bdi> keeps a right-to-left name from turning the words after it around). `slug` null: the
 * developer's preview, with buttons that go nowhere.
 */
export function DirectoryCard({ entry, slug }: { entry: DirectoryEntry; slug: string | null }) {
  const [open, setOpen] = useState(false);
  const link = slug === null ? null : appLink(entry.appUrl, slug);
  // "Read more" only when the clamped text hides some of it, at the card's width now.
  const description = useRef<HTMLParagraphElement>(null);
  const [hidesText, setHidesText] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text is the trigger (a longer text in the same three lines does not resize them), not a value read
  useLayoutEffect(() => {
    const el = description.current;
    if (!el) return;
    const check = () => {
      if (el.classList.contains("clamped")) setHidesText(el.scrollHeight > el.clientHeight + 1);
    };
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
  }, [entry.description]);
  const descriptionId = `about-${entry.clientId}`;
  const button = (label: string, primary: boolean) =>
    link ? (
      <a className={primary ? "button-link primary" : "button-link"} href={link} rel="noopener">
        {label}
        <span className="visually-hidden"> {entry.name}</span>
      </a>
    ) : (
      <span className={primary ? "button-link primary inert" : "button-link inert"}>{label}</span>
    );
  return (
    <article className="app-card" aria-labelledby={`name-${entry.clientId}`}>
      <div className="app-card-head">
        <AppIcon name={entry.name} color={entry.iconColor} />
        <div className="app-card-title">
          <h2 className="app-card-name user-text" id={`name-${entry.clientId}`}>
            <bdi>{entry.name}</bdi>
          </h2>
          <p className="app-card-host small muted">{hostOf(entry.appUrl)}</p>
        </div>
        {entry.installed ? (
          <Badge value={InstallationStatus.active} label={INSTALLATION_STATUSES.active.label} />
        ) : null}
      </div>
      <p className="app-card-tagline user-text">{entry.tagline}</p>
      <p
        ref={description}
        className={`app-card-description user-text${open ? "" : " clamped"}`}
        id={descriptionId}
      >
        {entry.description}
      </p>
      {hidesText || open ? (
        <button
          type="button"
          className="link app-card-more"
          aria-expanded={open}
          aria-controls={descriptionId}
          onClick={() => setOpen(!open)}
        >
          {open ? "Show less" : "Read more"}
        </button>
      ) : null}
      <div className="app-card-scopes">
        <h3>It will ask to</h3>
        <ScopeList scopes={entry.scopes} />
      </div>
      <div className="app-card-foot">
        {entry.installed ? button("Open app", false) : button("Install", true)}
        <a className="small app-card-support" href={mailto(entry.supportEmail)}>
          Support<span className="visually-hidden"> for {entry.name}</span>:{" "}
          <span className="user-text">{entry.supportEmail}</span>
        </a>
      </div>
    </article>
  );
}

/**
 * The developer's side: the app's listing, written as a draft (seen only by them), published into
 * every store's directory at once, or taken out again; with a preview of the card merchants see.
 */
export function ListingPanel({ app }: { app: AppInfo }) {
  const queryClient = useQueryClient();
  const listing = useQuery({
    queryKey: ["app-listing", app.clientId],
    queryFn: async () =>
      (
        await unwrap<AppListing | null>(
          api.GET("/api/v1/dashboard/apps/{clientId}/listing", {
            params: { path: { clientId: app.clientId } },
          }),
        )
      ).data,
  });
  if (listing.isPending) return <Loading what="Loading the listing" />;
  return (
    <ListingForm
      key={listing.data?.updatedAt ?? "new"}
      app={app}
      listing={listing.data ?? null}
      onSaved={(saved) => queryClient.setQueryData(["app-listing", app.clientId], saved)}
    />
  );
}

function ListingForm(props: { app: AppInfo; listing: AppListing | null; onSaved: (l: AppListing) => void }) {
  const { app, listing } = props;
  const [tagline, setTagline] = useState(listing?.tagline ?? "");
  const [description, setDescription] = useState(listing?.description ?? "");
  const [appUrl, setAppUrl] = useState(listing?.appUrl ?? "");
  const [supportEmail, setSupportEmail] = useState(listing?.supportEmail ?? "");
  const [iconColor, setIconColor] = useState<AppIconColor>(listing?.iconColor ?? "green");
  const notify = useNotify();
  const { errors, busy, handle } = useSubmit({ failure: "Saving the listing failed." });
  const published = listing?.status === AppListingStatus.published;
  const body = {
    tagline: tagline.trim(),
    description: description.trim(),
    appUrl: appUrl.trim(),
    supportEmail: supportEmail.trim(),
    iconColor,
  };
  const save = (status: AppListingStatus, news: string) =>
    handle(
      () =>
        validate([
          ["tagline", ListingTagline, body.tagline],
          ["description", ListingDescription, body.description],
          ["appUrl", AppUrl, body.appUrl],
          ["supportEmail", SupportEmail, body.supportEmail],
        ]),
      async () => {
        const { data } = await unwrap<AppListing>(
          api.PUT("/api/v1/dashboard/apps/{clientId}/listing", {
            params: { path: { clientId: app.clientId } },
            body: { ...body, status },
          }),
        );
        notify(news);
        props.onSaved(data);
      },
    );
  const preview: DirectoryEntry = {
    clientId: app.clientId,
    name: app.name,
    scopes: app.scopes,
    ...body,
    tagline: body.tagline || "Your one-line pitch",
    description: body.description || "What your app does for a merchant.",
    installed: false,
    publishedAt: listing?.publishedAt ?? new Date().toISOString(),
  };

  return (
    <Panel title="Directory listing">
      <p className="listing-status">
        <Badge
          value={listing?.status ?? AppListingStatus.draft}
          label={listing ? APP_LISTING_STATUSES[listing.status].label : "Not saved yet"}
        />{" "}
        <span className="small muted">
          {published
            ? `In every store's app directory since ${when(listing?.publishedAt)}.`
            : "Only you can see a draft. Publishing puts it in every store's app directory at once."}
        </span>
      </p>
      <div className="listing-editor">
        <form
          className="form"
          onSubmit={save(listing?.status ?? AppListingStatus.draft, "Listing saved")}
          noValidate
        >
          <FormAlert message={errors.message} />
          <p className="small muted">
            The name (<bdi className="strong">{app.name}</bdi>) and the scopes it asks for are the app's: edit
            the app to change them. Merchants see the same on the consent page.
          </p>
          <TextField
            label="Tagline"
            value={tagline}
            onChange={setTagline}
            maxLength={120}
            hint="One line under the name, up to 120 characters."
            error={errors.of("tagline")}
          />
          <Field
            label="Description"
            hint="What the app does for a merchant, as plain text (up to 2000 characters)."
            error={errors.of("description")}
          >
            {({ id, describedBy, invalid }) => (
              <textarea
                id={id}
                rows={5}
                maxLength={2000}
                value={description}
                onChange={(e) => setDescription(e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
              />
            )}
          </Field>
          <TextField
            label="App URL"
            value={appUrl}
            onChange={setAppUrl}
            placeholder="https://app.example.com/"
            hint="Install and Open app send the merchant here with ?store=<slug>: start the authorization from here when your app is not installed in that store yet."
            error={errors.of("appUrl")}
          />
          <TextField
            label="Support e-mail"
            type="email"
            value={supportEmail}
            onChange={setSupportEmail}
            autoComplete="off"
            error={errors.of("supportEmail")}
          />
          <fieldset className="icon-colors" aria-invalid={errors.of("iconColor") ? true : undefined}>
            <legend>Icon colour</legend>
            <p className="hint">Your icon is the app's initials on this colour.</p>
            <div className="icon-color-choices">
              {APP_ICON_COLOR_NAMES.map((c) => (
                <label key={c} className="icon-color">
                  <input
                    type="radio"
                    name="icon-color"
                    value={c}
                    checked={iconColor === c}
                    onChange={() => setIconColor(c)}
                  />
                  <span className={`swatch app-icon-${c}`} aria-hidden="true" />
                  {APP_ICON_COLORS[c].label}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="actions">
            {published ? (
              <>
                <button type="submit" className="primary" disabled={busy}>
                  {busy ? "Saving…" : "Save changes"}
                </button>
                <button
                  type="button"
                  className="secondary"
                  disabled={busy}
                  onClick={save(AppListingStatus.draft, "Listing unpublished: it is a draft again")}
                >
                  Unpublish
                </button>
              </>
            ) : (
              <>
                <button type="submit" className="secondary" disabled={busy}>
                  {busy ? "Saving…" : "Save draft"}
                </button>
                <button
                  type="button"
                  className="primary"
                  disabled={busy}
                  onClick={save(AppListingStatus.published, "Listing published: merchants can find it now")}
                >
                  Publish
                </button>
              </>
            )}
          </div>
          {app.privacyWebhookUrl === null ? (
            <p className="small warning">
              Publishing needs the app's privacy webhook URL: edit the app first.
            </p>
          ) : null}
        </form>
        <div className="listing-preview">
          <h3>Preview</h3>
          <DirectoryCard entry={preview} slug={null} />
        </div>
      </div>
    </Panel>
  );
}
