/** Bots: the list, and a form to create one. */
import { Link } from 'react-router';
import { useBots } from '../../api/bots.ts';
import { useMay } from '../../api/permissions.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { CreateBotForm } from './create-bot-form.tsx';

export function BotsPage() {
  const bots = useBots();
  const may = useMay();
  return (
    <>
      <h1>Bots</h1>
      <section aria-labelledby="bots-list">
        <h2 id="bots-list">All bots</h2>
        {bots.isPending && <p role="status">Loading bots…</p>}
        {bots.error && <ErrorAlert error={bots.error} what="Could not load the bots." />}
        {bots.data?.items.length === 0 && (
          <p>
            No bots yet
            {may('POST /v2/bots') ? ': create the first one below.' : '.'}
          </p>
        )}
        {bots.data && bots.data.items.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Channels</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {bots.data.items.map((bot) => (
                <tr key={bot.app_id}>
                  <td>
                    <Link to={`/bots/${bot.app_id}`}>{bot.name}</Link>
                  </td>
                  <td>{bot.channels.map((c) => c.type).join(', ')}</td>
                  <td>{bot.active ? 'Active' : 'Inactive'}</td>
                  <td>
                    <time dateTime={bot.created_at}>
                      {new Date(bot.created_at).toLocaleString()}
                    </time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {may('POST /v2/bots') && <CreateBotForm />}
    </>
  );
}
