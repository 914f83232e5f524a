/** Owners: every account (role, bots of agents, disabling) and invite links. */
import { useAccounts, useMe } from '../../api/accounts.ts';
import { QueryState } from '../../components/query-state.tsx';
import { AccountRow } from './account-row.tsx';
import { InviteForm } from './invite-form.tsx';
import { InvitesList } from './invites-list.tsx';

export function AccountsPage() {
  const accounts = useAccounts();
  const me = useMe();
  return (
    <>
      <h1>Accounts</h1>
      <InviteForm />
      <InvitesList />
      <section aria-labelledby="accounts-h">
        <h2 id="accounts-h">People</h2>
        <QueryState
          query={accounts}
          loading="Loading accounts…"
          failed="The accounts could not be loaded."
        />
        {accounts.data && (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Bots</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.map((account) => (
                <AccountRow
                  key={account.id}
                  account={account}
                  isMe={account.id === me.data?.account_id}
                />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
