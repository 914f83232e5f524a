/** The signed-in frame: a skip link, the navigation, sign out, and the page. */
import { NavLink, Outlet, useNavigate } from 'react-router';
import { useSignOut } from '../api/session.ts';

const SECTIONS = [
  { to: '/bots', label: 'Bots' },
  { to: '/knowledge', label: 'Knowledge' },
  { to: '/operations', label: 'Operations' },
  { to: '/audit', label: 'Audit' },
];

export function Layout() {
  const signOut = useSignOut();
  const navigate = useNavigate();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">botwire console</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.to}>
                <NavLink to={s.to}>{s.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
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
