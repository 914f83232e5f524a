/**
 * The page an invite link opens (`/console/invite/<token>`), without a session: what the invite
 * offers, a name and password (and an email when the invite names none); then the new account
 * signs in and the console opens.
 */
import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useAcceptInvite, useInviteOffer } from '../../api/accounts.ts';
import { ApiError } from '../../api/api-error.ts';
import { useSignIn } from '../../api/session.ts';
import { TextField } from '../../components/text-field.tsx';

export function InvitePage() {
  const token = useParams().token ?? '';
  const offer = useInviteOffer(token);
  const accept = useAcceptInvite(token);
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  if (offer.isPending) return <p role="status">Loading the invite…</p>;
  if (offer.isError) {
    const gone = offer.error instanceof ApiError && offer.error.status === 410;
    return (
      <main id="main" className="sign-in">
        <h1>Invite</h1>
        <p role="alert" className="error">
          {gone
            ? 'This invite link is unknown, already used or expired. Ask an owner for a new one.'
            : offer.error.message}
        </p>
      </main>
    );
  }
  const invitedEmail = offer.data.email;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const account = invitedEmail ?? email;
    accept.mutate(
      { name, password, ...(invitedEmail === null ? { email } : {}) },
      {
        onSuccess: () =>
          signIn.mutate(
            { email: account, password },
            { onSuccess: () => void navigate('/bots', { replace: true }) },
          ),
      },
    );
  };
  return (
    <main id="main" className="sign-in">
      <h1>Join botwire</h1>
      <p>
        You are invited as <strong>{offer.data.role}</strong>
        {invitedEmail !== null && (
          <>
            {' '}
            with the email <strong>{invitedEmail}</strong>
          </>
        )}
        .
      </p>
      <form onSubmit={submit}>
        {invitedEmail === null && (
          <TextField
            id="invite-email"
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={setEmail}
          />
        )}
        <TextField
          id="invite-name"
          label="Your name"
          autoComplete="name"
          required
          value={name}
          onChange={setName}
        />
        <TextField
          id="invite-password"
          label="Choose a password (12 characters or more)"
          type="password"
          autoComplete="new-password"
          minLength={12}
          required
          value={password}
          onChange={setPassword}
        />
        <button type="submit" disabled={accept.isPending || signIn.isPending}>
          Create my account
        </button>
        {(accept.isError || signIn.isError) && (
          <p role="alert" className="error">
            {(accept.error ?? signIn.error)?.message}
          </p>
        )}
      </form>
    </main>
  );
}
