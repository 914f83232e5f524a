/**
 * A bot's broadcasts on its page (docs/outbound.md, "Broadcasts"): each with its status and
 * counts, read again every 2 s while one is scheduled or running; owners and builders pause,
 * resume and cancel them and make new ones; everyone who sees them downloads the outcomes as CSV.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMay } from '../../api/permissions.ts';
import type { Bot } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { BroadcastForm } from './broadcast-form.tsx';
import {
  broadcastKeys,
  listBroadcasts,
  moveBroadcast,
  recipientsCsvUrl,
  type Broadcast,
  type Move,
} from './broadcasts-api.ts';
import { skippedInWords } from './broadcast-words.ts';

const ACTIVE = new Set(['scheduled', 'running']);

/** The moves each status allows, as the API does. */
const MOVES: Record<string, Move[]> = {
  scheduled: ['pause', 'cancel'],
  running: ['pause', 'cancel'],
  paused: ['resume', 'cancel'],
};

const MOVE_LABELS: Record<Move, string> = { pause: 'Pause', resume: 'Resume', cancel: 'Cancel' };

function Progress({ b }: { b: Broadcast }) {
  const { counts } = b;
  const done = counts.sent + counts.failed + counts.unknown + counts.skipped;
  return (
    <>
      <progress max={counts.total} value={done} aria-label={`${b.name}: done`} /> {counts.sent} sent
      {counts.delivered > 0 && ` (${counts.delivered} delivered, ${counts.read} read)`},{' '}
      {counts.queued + counts.sending} to go, {counts.failed} failed
      {counts.unknown > 0 && `, ${counts.unknown} unknown`}; skipped:{' '}
      {skippedInWords(counts.skipped_by_reason)}
    </>
  );
}

export function BroadcastsSection({ bot }: { bot: Bot }) {
  const may = useMay();
  const queryClient = useQueryClient();
  const key = broadcastKeys.list(bot.app_id);
  const broadcasts = useQuery({
    queryKey: key,
    queryFn: () => listBroadcasts(bot.app_id),
    refetchInterval: (query) =>
      query.state.data?.some((b) => ACTIVE.has(b.status)) ? 2000 : false,
  });
  const move = useMutation({
    mutationFn: ({ id, to }: { id: string; to: Move }) => moveBroadcast(id, to),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const items = broadcasts.data ?? [];
  return (
    <section aria-labelledby="broadcasts">
      <h2 id="broadcasts">Broadcasts</h2>
      <p className="hint">
        One message to many users at once, sent at the pace the platform allows after the bot’s
        replies. Users who sent “stop” (or blocked the bot on Telegram) are skipped.
      </p>
      <QueryState
        query={broadcasts}
        failed="Could not load the broadcasts."
        empty="No broadcast yet."
        isEmpty={items.length === 0}
        onRetry={() => void broadcasts.refetch()}
      />
      {items.length > 0 && (
        <table>
          <caption>Broadcasts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {items.map((b) => (
              <tr key={b.id}>
                <th scope="row">{b.name}</th>
                <td>
                  {b.status}
                  {b.status === 'running' && b.waiting_until && (
                    <>
                      : waiting for the number’s daily limit until{' '}
                      {new Date(b.waiting_until).toLocaleString()}
                    </>
                  )}
                </td>
                <td>
                  <Progress b={b} />
                </td>
                <td>
                  {(MOVES[b.status] ?? [])
                    .filter((to) => may(`POST /v2/broadcasts/:id/${to}`))
                    .map((to) => (
                      <button
                        key={to}
                        type="button"
                        data-route={`POST /v2/broadcasts/:id/${to}`}
                        disabled={move.isPending}
                        onClick={() => move.mutate({ id: b.id, to })}
                      >
                        {MOVE_LABELS[to]}
                        <span className="visually-hidden"> {b.name}</span>
                      </button>
                    ))}{' '}
                  <a href={recipientsCsvUrl(b.id)}>
                    Outcomes (CSV)<span className="visually-hidden"> of {b.name}</span>
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {move.isError && <ErrorAlert error={move.error} what="Could not move the broadcast." />}
      {may('POST /v2/bots/:app_id/broadcasts') && (
        <>
          <h3>New broadcast</h3>
          <BroadcastForm bot={bot} />
        </>
      )}
    </section>
  );
}
