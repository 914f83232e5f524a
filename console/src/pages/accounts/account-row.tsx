/** One account in the owners' list: its role, bots (for an agent) and whether it is disabled. */
import { useState } from 'react';
import { ROLES, useUpdateAccount, type Account, type Role } from '../../api/accounts.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { BotPicker } from './bot-picker.tsx';

export function AccountRow({ account, isMe }: { account: Account; isMe: boolean }) {
  const update = useUpdateAccount();
  const [editingBots, setEditingBots] = useState(false);
  const [bots, setBots] = useState(account.bots);
  const patch = (p: Parameters<typeof update.mutate>[0]['patch']) =>
    update.mutate({ id: account.id, patch: p });
  return (
    <tr>
      <th scope="row">
        {account.name}
        {isMe && ' (you)'}
      </th>
      <td>{account.email}</td>
      <td>
        <select
          aria-label={`Role of ${account.name}`}
          value={account.role}
          onChange={(e) => patch({ role: e.target.value as Role })}
          disabled={update.isPending}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td>
        {account.role === 'agent' &&
          (editingBots ? (
            <>
              <BotPicker legend={`Bots of ${account.name}`} value={bots} onChange={setBots} />
              <button
                type="button"
                onClick={() => {
                  patch({ bots });
                  setEditingBots(false);
                }}
              >
                Save bots
              </button>
            </>
          ) : (
            <button
              type="button"
              onClick={() => {
                // Start from the bots as saved now, not as they were when the row first showed.
                setBots(account.bots);
                setEditingBots(true);
              }}
            >
              Bots ({account.bots.length})
            </button>
          ))}
      </td>
      <td>
        {account.disabled ? 'disabled' : 'active'}{' '}
        <button
          type="button"
          onClick={() => patch({ disabled: !account.disabled })}
          disabled={update.isPending || isMe}
        >
          {account.disabled ? `Enable ${account.name}` : `Disable ${account.name}`}
        </button>
        {update.isError && <ErrorAlert what="The change was not saved." error={update.error} />}
      </td>
    </tr>
  );
}
