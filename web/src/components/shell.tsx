import { useIsFetching, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, NavLink, Outlet, useLocation, useMatch, useNavigate } from "react-router";
import { api, NO_BODY, whenUnauthenticated } from "../api/client.ts";
import { useForget, useMe, useStores } from "../api/session.ts";
import { STORE_ROLES, StoreRole } from "../contract.ts";
import { STORE_MENU } from "../page-registry.ts";
import { Loading } from "./ui.tsx";

const CURRENT_STORE = "mp.store";

/**
 * The signed-in layout: skip link, sidebar (brand, store switcher, the store's sections, the
 * developer's apps, the account), and the page. Anyone signed out is sent to the login page and
 * brought back afterwards.
 */
export function Shell() {
  const me = useMe();
  const navigate = useNavigate();
  const location = useLocation();
  const forget = useForget();
  const queryClient = useQueryClient();
  const stores = useStores(Boolean(me.data));
  const match = useMatch("/stores/:slug/*");
  const slug = match?.params.slug ?? localStorage.getItem(CURRENT_STORE);
  // The phone menu is open for the page it was opened on: a navigation folds it again.
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null);
  const menuOpen = menuOpenOn === location.pathname;
  const fetching = useIsFetching();

  useEffect(() => {
    whenUnauthenticated(() => {
      forget();
      navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    });
  }, [forget, navigate, location]);
  useEffect(() => {
    if (match?.params.slug) localStorage.setItem(CURRENT_STORE, match.params.slug);
  }, [match?.params.slug]);
  // A new page opens at its top, not at the scroll the previous page was left at (a change of
  // the query alone, a list's search or sort, keeps the place).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is the trigger, not a value read
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [location.pathname]);

  if (me.isPending) return <Loading what="Opening your dashboard" />;
  if (!me.data) {
    const next =
      location.pathname === "/" ? "" : `?next=${encodeURIComponent(location.pathname + location.search)}`;
    navigateLater(() => navigate(`/login${next}`, { replace: true }));
    return <Loading what="Signing in" />;
  }
  const storeList = stores.data ?? [];
  const current = storeList.find((s) => s.slug === slug) ?? null;

  async function logOut() {
    await api.POST("/api/v1/dashboard/auth/logout", { body: NO_BODY });
    forget();
    queryClient.clear();
    navigate("/login", { replace: true });
  }

  return (
    <div className="signed-in">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className={`sidebar ${menuOpen ? "open" : ""}`} aria-label="Main navigation">
        <div className="sidebar-top">
          <Link className="brand" to="/">
            <span className="logo" aria-hidden="true">
              M
            </span>
            Merchant Platform
          </Link>
          <button
            type="button"
            className="menu-toggle secondary"
            aria-expanded={menuOpen}
            aria-controls="sidebar-nav"
            onClick={() => setMenuOpenOn(menuOpen ? null : location.pathname)}
          >
            Menu
          </button>
        </div>
        <nav id="sidebar-nav" aria-label="Main">
          {storeList.length > 0 ? (
            <div className="switcher field">
              <label htmlFor="store-switcher">Store</label>
              <select
                id="store-switcher"
                value={current?.slug ?? ""}
                onChange={(e) => {
                  const section = match?.params["*"]?.split("/")[0] ?? "";
                  navigate(`/stores/${e.target.value}${section ? `/${section}` : ""}`);
                }}
              >
                {current ? null : <option value="">Choose a store</option>}
                {storeList.map((s) => (
                  <option key={s.slug} value={s.slug}>
                    {s.name}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {current ? (
            <div className="nav-group">
              <p className="nav-title">
                {current.name}
                {current.role === StoreRole.owner ? null : (
                  <span className="nav-role"> · {STORE_ROLES[current.role].label}</span>
                )}
              </p>
              {STORE_MENU.filter((s) => !s.scope || current.permissions.includes(s.scope)).map((s) => (
                <NavLink
                  key={s.path}
                  to={`/stores/${current.slug}${s.path ? `/${s.path}` : ""}`}
                  end={s.path === ""}
                >
                  {s.label}
                </NavLink>
              ))}
            </div>
          ) : null}
          <div className="nav-group">
            <p className="nav-title">Platform</p>
            <NavLink to="/" end>
              All stores
            </NavLink>
            <NavLink to="/apps">My apps</NavLink>
            <NavLink to="/account">Account</NavLink>
            <a href="/api/docs/ui">API docs</a>
          </div>
          <div className="nav-footer">
            <p className="who">
              <span className="strong">{me.data.name}</span>
              <span className="who-email small muted">{me.data.email}</span>
            </p>
            <button type="button" className="secondary" onClick={logOut}>
              Log out
            </button>
          </div>
        </nav>
      </aside>
      <main id="main" className="content" aria-busy={fetching > 0}>
        <Outlet />
      </main>
    </div>
  );
}

/** Navigation during render is not allowed: schedule it for after. */
function navigateLater(go: () => void) {
  queueMicrotask(go);
}
