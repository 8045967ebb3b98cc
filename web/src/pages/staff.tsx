import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import { useMe } from "../api/session.ts";
import type { InvitationSent, StaffInvitation, StaffMember, StoreStaff } from "../api/types.ts";
import { Table } from "../components/list.tsx";
import {
  Badge,
  CopyBox,
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
import { Email, Scope, STAFF_ROLE_NAMES, STORE_ROLES, type StaffRole, StoreRole } from "../contract.ts";
import { when } from "../lib/format.ts";
import { useSlug } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

/**
 * The store's staff (issue 32, part 3): who works in it and with which role, invitations by
 * e-mail, role changes and removals. Only the owner and admins reach it (manage_staff); the server
 * refuses the rest, and what may not change (the owner, oneself) shows no control here.
 */
export function StaffPage() {
  const slug = useSlug();
  const me = useMe();
  const queryClient = useQueryClient();
  const [sent, setSent] = useState<InvitationSent | null>(null);
  const staff = useQuery({
    queryKey: ["staff", slug],
    queryFn: async () =>
      (
        await unwrap<StoreStaff>(
          api.GET("/api/v1/dashboard/stores/{slug}/staff", { params: { path: { slug } } }),
        )
      ).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["staff", slug] });

  return (
    <>
      <PageHeader
        title="Staff"
        subtitle="The people who work in this store and what each may do. Changes count from their next click."
      />
      {staff.isPending ? (
        <Loading what="Loading the staff" />
      ) : staff.error ? (
        <FormAlert
          message={staff.error instanceof ApiError ? staff.error.message : "Loading the staff failed."}
        />
      ) : (
        <>
          <Panel title="People">
            <Table headers={["Name", "Role", "Since", "Actions"]} caption="People who work in this store">
              {staff.data.members.map((m) => (
                <MemberRow
                  key={m.accountId}
                  slug={slug}
                  member={m}
                  self={m.accountId === me.data?.id}
                  onChanged={refresh}
                />
              ))}
            </Table>
          </Panel>
          {sent ? <InvitationNotice sent={sent} onDone={() => setSent(null)} /> : null}
          <Panel title="Invite someone">
            <InviteForm
              slug={slug}
              onSent={async (answer) => {
                setSent(answer);
                await refresh();
              }}
            />
          </Panel>
          <Panel title="Open invitations">
            {staff.data.invitations.length ? (
              <Table
                headers={["E-mail", "Role", "Invited by", "Expires", "Actions"]}
                caption="Open invitations"
              >
                {staff.data.invitations.map((i) => (
                  <InvitationRow key={i.id} slug={slug} invitation={i} onChanged={refresh} />
                ))}
              </Table>
            ) : (
              <Empty>No open invitations.</Empty>
            )}
          </Panel>
          <Panel title="What each role may do">
            <dl className="role-list">
              {Object.values(StoreRole).map((role) => (
                <div key={role}>
                  <dt className="strong">{STORE_ROLES[role].label}</dt>
                  <dd className="muted">{STORE_ROLES[role].description}</dd>
                </div>
              ))}
            </dl>
          </Panel>
        </>
      )}
    </>
  );
}

function MemberRow(props: { slug: string; member: StaffMember; self: boolean; onChanged: () => unknown }) {
  const { slug, member: m } = props;
  const confirm = useConfirm();
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  const fixed = m.role === StoreRole.owner || props.self;

  async function changeRole(role: StaffRole) {
    setBusy(true);
    try {
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
          params: { path: { slug, accountId: m.accountId } },
          body: { role },
        }),
      );
      notify(`${m.name} is now ${STORE_ROLES[role].label}`);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Changing the role failed.", "error");
    } finally {
      setBusy(false);
    }
    await props.onChanged();
  }

  async function remove() {
    const ok = await confirm({
      title: `Remove ${m.name}?`,
      message: "They lose this store at once and are signed out everywhere. You can invite them again later.",
      confirmLabel: "Remove",
    });
    if (!ok) return;
    try {
      await unwrap(
        api.DELETE("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
          params: { path: { slug, accountId: m.accountId } },
        }),
      );
      notify(`${m.name} removed`);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Removing failed.", "error");
    }
    await props.onChanged();
  }

  return (
    <tr>
      <td data-label="Name">
        <div className="person">
          <span className="strong user-text">
            {m.name}
            {props.self ? <span className="muted small"> (you)</span> : null}
          </span>
          <span className="muted small user-text">{m.email}</span>
        </div>
      </td>
      <td data-label="Role">
        {fixed ? (
          STORE_ROLES[m.role].label
        ) : (
          <select
            aria-label={`Role of ${m.name}`}
            value={m.role}
            disabled={busy}
            onChange={(e) => changeRole(e.target.value as StaffRole)}
          >
            {STAFF_ROLE_NAMES.map((r) => (
              <option key={r} value={r}>
                {STORE_ROLES[r].label}
              </option>
            ))}
          </select>
        )}
      </td>
      <td data-label="Since" className="small">
        {when(m.since)}
      </td>
      <td className="cell-actions">
        {fixed ? null : (
          <button type="button" className="danger" onClick={remove} aria-label={`Remove ${m.name}`}>
            Remove
          </button>
        )}
      </td>
    </tr>
  );
}

function InvitationRow(props: { slug: string; invitation: StaffInvitation; onChanged: () => unknown }) {
  const { slug, invitation: i } = props;
  const notify = useNotify();
  async function withdraw() {
    try {
      await unwrap(
        api.DELETE("/api/v1/dashboard/stores/{slug}/staff/invitations/{invitationId}", {
          params: { path: { slug, invitationId: i.id } },
        }),
      );
      notify(`Invitation to ${i.email} withdrawn`);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Withdrawing failed.", "error");
    }
    await props.onChanged();
  }
  return (
    <tr>
      <td data-label="E-mail" className="user-text">
        {i.email}
      </td>
      <td data-label="Role">{STORE_ROLES[i.role].label}</td>
      <td data-label="Invited by" className="user-text">
        {i.invitedBy ?? "—"}
      </td>
      <td data-label="Expires" className="small">
        {i.expired ? <Badge value="expired" label="expired" /> : when(i.expiresAt)}
      </td>
      <td className="cell-actions">
        <button
          type="button"
          className="secondary"
          onClick={withdraw}
          aria-label={`Withdraw the invitation to ${i.email}`}
        >
          Withdraw
        </button>
      </td>
    </tr>
  );
}

function InviteForm({ slug, onSent }: { slug: string; onSent: (sent: InvitationSent) => unknown }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<StaffRole>(StoreRole.orders);
  const { errors, busy, handle } = useSubmit({ failure: "Sending the invitation failed." });
  const submit = handle(
    () => validate([["email", Email, email.trim()]]),
    async () => {
      const { data } = await unwrap<InvitationSent>(
        api.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
          params: { path: { slug } },
          body: { email: email.trim(), role },
        }),
      );
      setEmail("");
      await onSent(data);
    },
  );
  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label="E-mail"
        type="email"
        autoComplete="off"
        value={email}
        onChange={setEmail}
        hint="They accept with an account using this address, or create one."
        error={errors.of("email")}
      />
      <Field label="Role" hint={STORE_ROLES[role].description} error={errors.of("role")}>
        {({ id, describedBy }) => (
          <select
            id={id}
            aria-describedby={describedBy}
            value={role}
            onChange={(e) => setRole(e.target.value as StaffRole)}
          >
            {STAFF_ROLE_NAMES.map((r) => (
              <option key={r} value={r}>
                {STORE_ROLES[r].label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FormActions busy={busy} label="Send invitation" busyLabel="Sending…" />
    </form>
  );
}

/** What became of an invitation just sent, with its link (shown only now) to pass on by hand. */
function InvitationNotice({ sent, onDone }: { sent: InvitationSent; onDone: () => void }) {
  return (
    <section className="panel invitation-notice" aria-label="Invitation sent">
      <h2>Invitation sent to {sent.invitation.email}</h2>
      <p>
        The e-mail is on its way. If it does not arrive, you can pass on this link yourself: it works once,
        for that address only. It expires {when(sent.invitation.expiresAt)}.
      </p>
      <CopyBox label="Invitation link" value={sent.acceptUrl} />
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/staff",
    element: <StaffPage />,
    storeMenu: { label: "Staff", order: 65, scope: Scope.manage_staff },
  }),
];
