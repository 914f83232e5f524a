/**
 * Owners: the invites not used yet and not expired, each withdrawable (its link stops working);
 * a link is shown only once, when it is made, so it is not listed here.
 */
import { useState } from 'react';
import { useInvites, useWithdrawInvite } from '../../api/accounts.ts';
import { useBots } from '../../api/bots.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { QueryState } from '../../components/query-state.tsx';

export function InvitesList() {
  const invites = useInvites();
  const bots = useBots();
  const withdraw = useWithdrawInvite();
  const [asking, setAsking] = useState<string | null>(null);
  const nameOf = (appId: string) => bots.data?.items.find((b) => b.app_id === appId)?.name ?? appId;
  return (
    <section aria-labelledby="invites-h">
      <h2 id="invites-h">Open invites</h2>
      <QueryState
        query={invites}
        loading="Loading invites…"
        failed="The invites could not be loaded."
      />
      {invites.data?.length === 0 && <p>No open invite.</p>}
      {invites.data && invites.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Email</th>
              <th scope="col">Bots</th>
              <th scope="col">Made by</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {invites.data.map((invite) => (
              <tr key={invite.id}>
                <td>{invite.role}</td>
                <td>{invite.email ?? 'the invited person enters one'}</td>
                <td>{invite.bots.length > 0 ? invite.bots.map(nameOf).join(', ') : '—'}</td>
                <td>{invite.created_by}</td>
                <td>{new Date(invite.expires_at).toLocaleString()}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    data-route="DELETE /v2/invites/:id"
                    aria-label={`Withdraw the ${invite.role} invite${invite.email ? ` for ${invite.email}` : ''}`}
                    onClick={() => setAsking(invite.id)}
                  >
                    Withdraw
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {asking !== null && (
        <ConfirmDialog
          title="Withdraw this invite?"
          confirmLabel="Withdraw"
          danger
          busy={withdraw.isPending}
          onCancel={() => setAsking(null)}
          onConfirm={() => withdraw.mutate(asking, { onSuccess: () => setAsking(null) })}
        >
          Its link stops working; nobody can make an account with it.
        </ConfirmDialog>
      )}
      {withdraw.error && (
        <ErrorAlert error={withdraw.error} what="Could not withdraw the invite." />
      )}
    </section>
  );
}
