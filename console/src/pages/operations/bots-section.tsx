/**
 * What waits for each bot now (read every few seconds while the page is shown): its backlog as
 * the edge's backpressure counts it, and per channel the replies parked behind an open circuit
 * breaker, how long it stays open yet and the failed platform calls in its window. Bots with
 * nothing waiting are counted, not listed. Below, the replies the platforms refused today, by code.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { getBotsAtWork, opsKeys } from './operations-api.ts';
import { refusalMeaning } from '../../components/refusal-meaning.ts';

/** How often what waits is read again (ms): a held reply shows within this. */
const BOTS_REFRESH_MS = 3000;

export function BotsSection() {
  const bots = useQuery({
    queryKey: opsKeys.bots,
    queryFn: getBotsAtWork,
    refetchInterval: BOTS_REFRESH_MS,
  });
  // Which bots wait is the server's rule (`waiting`), not decided again here.
  const waiting = bots.data?.bots.filter((b) => b.waiting) ?? [];
  const quiet = (bots.data?.bots.length ?? 0) - waiting.length;
  const refused = (bots.data?.bots ?? [])
    .flatMap((bot) => bot.refused_today.map((refusal) => ({ bot, refusal })))
    .sort((a, b) => b.refusal.count - a.refusal.count);
  return (
    <section aria-labelledby="ops-bots-h">
      <h2 id="ops-bots-h">Bots</h2>
      {bots.isPending && <p role="status">Loading bots…</p>}
      {bots.isError && <ErrorAlert what="The bots could not be loaded." error={bots.error} />}
      {bots.data && waiting.length === 0 && <p>Nothing waits for any bot.</p>}
      {waiting.length > 0 && (
        <table>
          <caption>Bots with replies waiting or a failing platform</caption>
          <thead>
            <tr>
              <th scope="col">Bot</th>
              <th scope="col">Backlog</th>
              <th scope="col">Channel</th>
              <th scope="col">Parked replies</th>
              <th scope="col">Platform</th>
            </tr>
          </thead>
          <tbody>
            {waiting.flatMap((bot) => {
              // A bot without channels (all removed) still gets its row: its backlog waits.
              const rows = bot.channels.length > 0 ? bot.channels : [null];
              return rows.map((c, i) => (
                <tr key={c?.id ?? bot.app_id}>
                  {i === 0 && (
                    <>
                      <th scope="row" rowSpan={rows.length}>
                        <Link to={`/bots/${bot.app_id}`}>{bot.name}</Link>
                      </th>
                      <td rowSpan={rows.length}>{bot.backlog}</td>
                    </>
                  )}
                  <td>{c?.type ?? 'no channel'}</td>
                  <td>{c?.parked ?? 0}</td>
                  <td className={c?.breaker === 'open' ? 'ops-failing' : undefined}>
                    {c === null
                      ? '—'
                      : c.breaker === 'open'
                        ? `failing: sends paused ${Math.ceil(c.open_ms / 1000)} s more`
                        : c.failures > 0
                          ? `${c.failures} failed calls lately`
                          : 'ok'}
                  </td>
                </tr>
              ));
            })}
          </tbody>
        </table>
      )}
      {bots.data && waiting.length > 0 && quiet > 0 && (
        <p className="hint">
          {quiet === 1 ? '1 other bot has' : `${quiet} other bots have`} nothing waiting.
        </p>
      )}
      {bots.data && (
        <p className="hint">
          As of {new Date(bots.dataUpdatedAt).toLocaleTimeString()}, read every{' '}
          {BOTS_REFRESH_MS / 1000} s.
        </p>
      )}
      {refused.length > 0 && (
        <table>
          <caption>Replies the platforms refused today (UTC)</caption>
          <thead>
            <tr>
              <th scope="col">Bot</th>
              <th scope="col">Channel</th>
              <th scope="col">Code</th>
              <th scope="col">Replies</th>
              <th scope="col">Means</th>
            </tr>
          </thead>
          <tbody>
            {refused.map(({ bot, refusal }) => (
              <tr key={`${bot.app_id}/${refusal.channel_type}/${refusal.code}`}>
                <th scope="row">
                  <Link to={`/bots/${bot.app_id}/analytics`}>{bot.name}</Link>
                </th>
                <td>{refusal.channel_type}</td>
                <td>{refusal.code || 'none given'}</td>
                <td>{refusal.count}</td>
                <td>{refusalMeaning(refusal.code)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
