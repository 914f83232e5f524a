/**
 * Invite someone: a role, an optional email, bots for an agent. The answer's one-time link is
 * shown to copy and pass on (no mail is sent); it is never shown again.
 */
import { useState, type FormEvent } from 'react';
import { ROLES, useCreateInvite, type Role } from '../../api/accounts.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { TextField } from '../../components/text-field.tsx';
import { BotPicker } from './bot-picker.tsx';

export function InviteForm() {
  const [role, setRole] = useState<Role>('viewer');
  const [email, setEmail] = useState('');
  const [bots, setBots] = useState<string[]>([]);
  const [copied, setCopied] = useState(false);
  const invite = useCreateInvite();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCopied(false);
    invite.mutate({
      role,
      ...(email.trim() !== '' ? { email: email.trim() } : {}),
      ...(role === 'agent' ? { bots } : {}),
    });
  };
  const copy = async (url: string) => {
    await navigator.clipboard.writeText(url);
    setCopied(true);
  };
  return (
    <section aria-labelledby="invite-h">
      <h2 id="invite-h">Invite someone</h2>
      <form onSubmit={submit}>
        <label htmlFor="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <TextField
          id="invite-email"
          label="Email (optional)"
          type="email"
          value={email}
          onChange={setEmail}
        />
        {role === 'agent' && (
          <>
            <BotPicker legend="Bots of the agent" value={bots} onChange={setBots} />
            {bots.length === 0 && (
              <p className="hint">An agent sees only its bots: pick at least one.</p>
            )}
          </>
        )}
        <button
          type="submit"
          disabled={invite.isPending || (role === 'agent' && bots.length === 0)}
        >
          Create invite link
        </button>
      </form>
      {invite.isError && <ErrorAlert what="The invite was not made." error={invite.error} />}
      {invite.data && (
        <div role="status">
          <label htmlFor="invite-link">
            Invite link (shown once; valid until {new Date(invite.data.expires_at).toLocaleString()}
            )
          </label>
          <input id="invite-link" readOnly value={invite.data.url ?? ''} />
          <button type="button" onClick={() => void copy(invite.data.url ?? '')}>
            {copied ? 'Copied' : 'Copy link'}
          </button>
        </div>
      )}
    </section>
  );
}
