/** My personal API tokens: make one (shown once, to copy), see when each was used, revoke. */
import { useState, type FormEvent } from 'react';
import { useCreateToken, useRevokeToken, useTokens } from '../../api/accounts.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { TextField } from '../../components/text-field.tsx';

export function TokensPage() {
  const tokens = useTokens();
  const create = useCreateToken();
  const revoke = useRevokeToken();
  const [name, setName] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name }, { onSuccess: () => setName('') });
  };
  return (
    <>
      <h1>My tokens</h1>
      <p>
        A token calls the admin API as you (<code>Authorization: Bearer bwp_…</code>), with your
        role. It is shown once, when made.
      </p>
      <form onSubmit={submit}>
        <TextField id="token-name" label="Token name" required value={name} onChange={setName} />
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {create.isError && <ErrorAlert what="The token was not made." error={create.error} />}
      {create.data && (
        <div role="status">
          <label htmlFor="new-token">New token (copy it now: it is not shown again)</label>
          <input id="new-token" readOnly value={create.data.token ?? ''} />
        </div>
      )}
      <QueryState
        query={tokens}
        loading="Loading tokens…"
        failed="The tokens could not be loaded."
      />
      {tokens.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Made</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.id}>
                <th scope="row">{t.name}</th>
                <td>{t.role}</td>
                <td>{new Date(t.created_at).toLocaleString()}</td>
                <td>{t.last_used_at ? new Date(t.last_used_at).toLocaleString() : 'never'}</td>
                <td>
                  {t.revoked_at ? (
                    'revoked'
                  ) : (
                    <button
                      type="button"
                      onClick={() => revoke.mutate(t.id)}
                      disabled={revoke.isPending}
                    >
                      Revoke {t.name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
