/**
 * The signed-in frame: a skip link, the navigation (only the sections the signed-in role can use,
 * docs/accounts.md), who is signed in, sign out, and the page.
 */
import { NavLink, Outlet, useNavigate } from 'react-router';
import { useMe, type Me } from '../api/accounts.ts';
import { useSignOut } from '../api/session.ts';

const SECTIONS: { to: string; label: string; shown: (me: Me) => boolean }[] = [
  { to: '/bots', label: 'Bots', shown: () => true },
  // Every role may look at handoffs (agents: their bots'); owners and agents act in them.
  { to: '/inbox', label: 'Inbox', shown: () => true },
  { to: '/knowledge', label: 'Knowledge', shown: (me) => me.role !== 'agent' },
  { to: '/operations', label: 'Operations', shown: (me) => me.role !== 'agent' },
  { to: '/accounts', label: 'Accounts', shown: (me) => me.role === 'owner' },
  // The admin key is no account: it has no tokens.
  { to: '/tokens', label: 'My tokens', shown: (me) => me.account_id !== null },
  { to: '/audit', label: 'Audit', shown: (me) => me.role === 'owner' },
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
              SECTIONS.filter((s) => s.shown(me.data)).map((s) => (
                <li key={s.to}>
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
