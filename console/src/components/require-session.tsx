/** Shows its children to a signed-in operator; anyone else goes to the sign-in page. */
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../api/session.ts';

export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <p role="status">Loading…</p>;
  if (session.isError) {
    return <p role="alert">The console cannot reach the server: {session.error.message}</p>;
  }
  if (session.data === null) {
    return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
  }
  return children;
}
