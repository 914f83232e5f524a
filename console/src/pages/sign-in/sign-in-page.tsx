/**
 * Sign in: an account's email and password, or the service's admin key (the bootstrap owner),
 * exchanged once for a session cookie (POST /v2/session).
 */
import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { ApiError } from '../../api/api-error.ts';
import { useSession, useSignIn } from '../../api/session.ts';
import { TextField } from '../../components/text-field.tsx';

function refusal(error: unknown, withKey: boolean): string {
  if (!(error instanceof ApiError)) return 'The server could not be reached; try again.';
  if (error.status === 401) {
    if (withKey) return 'That key is not the admin key.';
    return error.message.includes('disabled')
      ? 'This account is disabled; ask an owner.'
      : 'The email or password is wrong.';
  }
  if (error.status === 429) {
    const wait = error.retryAfterS ?? Number(error.details?.retry_after_s ?? 0);
    return `Too many failed sign-ins. Try again in ${wait} seconds.`;
  }
  return error.message;
}

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState('');
  const session = useSession();
  const byAccount = useSignIn();
  const byKey = useSignIn();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/bots';

  if (session.data) return <Navigate to={from} replace />;

  const done = { onSuccess: () => void navigate(from, { replace: true }) };
  const submitAccount = (event: FormEvent) => {
    event.preventDefault();
    byAccount.mutate({ email, password }, done);
  };
  const submitKey = (event: FormEvent) => {
    event.preventDefault();
    byKey.mutate(key, done);
  };
  return (
    <main id="main" className="sign-in">
      <h1>botwire console</h1>
      <form onSubmit={submitAccount}>
        <h2 id="sign-in-account">Sign in</h2>
        <TextField
          id="email"
          label="Email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={setEmail}
        />
        <TextField
          id="password"
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
        />
        <button type="submit" disabled={byAccount.isPending}>
          {byAccount.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        {byAccount.isError && (
          <p role="alert" className="error">
            {refusal(byAccount.error, false)}
          </p>
        )}
      </form>
      <form onSubmit={submitKey} aria-describedby="sign-in-help">
        <h2 id="sign-in-key">Or with the admin key</h2>
        <p id="sign-in-help">
          The service&apos;s admin key (<code>ADMIN_API_KEY</code> in its env file) signs in as the
          first owner, who invites everyone else.
        </p>
        <TextField
          id="admin-key"
          label="Admin key"
          type="password"
          autoComplete="off"
          required
          value={key}
          onChange={setKey}
        />
        <button type="submit" disabled={byKey.isPending}>
          {byKey.isPending ? 'Signing in…' : 'Sign in with the admin key'}
        </button>
        {byKey.isError && (
          <p role="alert" className="error">
            {refusal(byKey.error, true)}
          </p>
        )}
      </form>
    </main>
  );
}
