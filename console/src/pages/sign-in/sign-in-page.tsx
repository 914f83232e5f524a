/** Sign in: the admin key is exchanged once for a session cookie (POST /v2/session). */
import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { ApiError } from '../../api/api-error.ts';
import { useSession, useSignIn } from '../../api/session.ts';

function refusal(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The server could not be reached; try again.';
  if (error.status === 401) return 'That key is not the admin key.';
  if (error.status === 429) {
    const wait = error.retryAfterS ?? Number(error.details?.retry_after_s ?? 0);
    return `Too many failed sign-ins from this address. Try again in ${wait} seconds.`;
  }
  return error.message;
}

export function SignInPage() {
  const [key, setKey] = useState('');
  const session = useSession();
  const signIn = useSignIn();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/bots';

  if (session.data) return <Navigate to={from} replace />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate(key, { onSuccess: () => void navigate(from, { replace: true }) });
  };
  return (
    <main id="main" className="sign-in">
      <h1>botwire console</h1>
      <form onSubmit={submit} aria-describedby="sign-in-help">
        <p id="sign-in-help">
          Sign in with the service&apos;s admin key (<code>ADMIN_API_KEY</code> in its env file).
        </p>
        <label htmlFor="admin-key">Admin key</label>
        <input
          id="admin-key"
          type="password"
          autoComplete="current-password"
          required
          value={key}
          onChange={(e) => setKey(e.target.value)}
        />
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        {signIn.isError && (
          <p role="alert" className="error">
            {refusal(signIn.error)}
          </p>
        )}
      </form>
    </main>
  );
}
