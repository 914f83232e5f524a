/**
 * The signed-in frame: a skip link, the navigation (only the sections whose list the signed-in
 * caller may read: `may` of GET /v2/me, the permission table the API enforces), who is signed in,
 * sign out, and the page.
 */
import { NavLink, Outlet, useNavigate } from 'react-router';
import { useMe, type Me } from '../api/accounts.ts';
import type { RouteKey } from '../api/permissions.ts';
import { useSignOut } from '../api/session.ts';

/** Each section and the route its page lists from. */
const SECTIONS: { to: string; label: string; route: RouteKey; shown?: (me: Me) => boolean }[] = [
  { to: '/bots', label: 'Bots', route: 'GET /v2/bots' },
  // Every role may look at handoffs (agents: their bots'); owners and agents act in them.
  { to: '/inbox', label: 'Inbox', route: 'GET /v2/handoffs' },
  { to: '/knowledge', label: 'Knowledge', route: 'GET /v2/collections' },
  { to: '/operations', label: 'Operations', route: 'GET /v2/ops/processes' },
  { to: '/accounts', label: 'Accounts', route: 'GET /v2/accounts' },
  // The admin key is no account: it has no tokens.
  {
    to: '/tokens',
    label: 'My tokens',
    route: 'GET /v2/tokens',
    shown: (me) => me.account_id !== null,
  },
  { to: '/audit', label: 'Audit', route: 'GET /v2/audit' },
];

export function Layout() {
  const signOut = useSignOut();
  const navigate = useNavigate();
  const me = useMe();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">botwire console</span>
        <nav aria-label="Sections">
          <ul>
            {me.data &&
              SECTIONS.filter(
                (s) => me.data.may.includes(s.route) && (s.shown?.(me.data) ?? true),
              ).map((s) => (
                <li key={s.to} data-route={s.route}>
                  <NavLink to={s.to}>{s.label}</NavLink>
                </li>
              ))}
          </ul>
        </nav>
        {me.data && (
          <span className="signed-in">
            Signed in as <strong>{me.data.name}</strong> ({me.data.role})
          </span>
        )}
        <button
          type="button"
          onClick={() => signOut.mutate(undefined, { onSettled: () => void navigate('/sign-in') })}
          disabled={signOut.isPending}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
