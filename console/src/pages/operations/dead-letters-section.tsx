/**
 * A topic's dead letters: the list (newest pages on demand), one inspected as JSON, and replays
 * of one or all after a confirmation, with the result (replayed count and refusals) shown.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ReplayTarget } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { getDeadLetter, listDeadLetters, opsKeys, replayDeadLetters } from './operations-api.ts';
import { confirmQuestion, replaySummary } from './replay.ts';
import { LoadMore } from '../../components/load-more.tsx';
import { useMay } from '../../api/permissions.ts';

function Inspect({ topic, id }: { topic: string; id: string }) {
  const letter = useQuery({
    queryKey: opsKeys.deadLetter(topic, id),
    queryFn: () => getDeadLetter(topic, id),
  });
  if (letter.isPending) return <p role="status">Loading dead letter {id}…</p>;
  if (letter.isError)
    return <ErrorAlert what={`Dead letter ${id} could not be loaded.`} error={letter.error} />;
  return (
    <section aria-labelledby="ops-inspect-h">
      <h3 id="ops-inspect-h">
        Dead letter <code>{id}</code>
      </h3>
      {/* Text content only: the letter's data is whatever was published, never markup. */}
      <pre className="ops-json" tabIndex={0} aria-label={`Dead letter ${id} as JSON`}>
        {JSON.stringify(letter.data, null, 2)}
      </pre>
    </section>
  );
}

export function DeadLettersSection({ topic }: { topic: string }) {
  const queryClient = useQueryClient();
  const [inspected, setInspected] = useState<string | undefined>(undefined);
  const [asking, setAsking] = useState<ReplayTarget | undefined>(undefined);
  const letters = useInfiniteQuery({
    queryKey: opsKeys.deadLetters(topic),
    queryFn: ({ pageParam }) => listDeadLetters(topic, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_after ?? undefined,
  });
  const mayReplay = useMay()('POST /v2/ops/dead-letters/:topic/replay');
  const replay = useMutation({
    mutationFn: (target: ReplayTarget) => replayDeadLetters(topic, target),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: opsKeys.deadLetters(topic) });
      void queryClient.invalidateQueries({ queryKey: opsKeys.topics });
    },
  });
  const items = letters.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby="ops-dead-h">
      <h2 id="ops-dead-h">
        Dead letters of <code>{topic}</code>
      </h2>
      {letters.isPending && <p role="status">Loading dead letters…</p>}
      {letters.isError && (
        <ErrorAlert what="The dead letters could not be loaded." error={letters.error} />
      )}
      {replay.isError && <ErrorAlert what="The replay failed." error={replay.error} />}
      {replay.isSuccess && (
        <div role="status" className="ops-result">
          <p>Replay: {replaySummary(replay.data)}.</p>
          {replay.data.refused.length > 0 && (
            <ul
              aria-label={
                replay.data.refused.length < (replay.data.refused_count ?? 0)
                  ? `Refused dead letters, the first ${replay.data.refused.length}`
                  : 'Refused dead letters'
              }
            >
              {replay.data.refused.map((r) => (
                <li key={r.id}>
                  <code>{r.id}</code> <code>{r.code}</code> {r.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {letters.data && items.length === 0 && <p>No dead letters.</p>}
      {items.length > 0 && (
        <>
          {mayReplay && (
            <p>
              <button
                type="button"
                data-route="POST /v2/ops/dead-letters/:topic/replay"
                disabled={replay.isPending}
                onClick={() => setAsking({ all: true })}
              >
                Replay all
              </button>
            </p>
          )}
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Code</th>
                <th scope="col">Reason</th>
                <th scope="col">Failed</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {items.map((letter) => (
                <tr key={letter.id} aria-current={letter.id === inspected ? 'true' : undefined}>
                  <td>
                    <code>{letter.id}</code>
                  </td>
                  <td>
                    <code>{letter.code}</code>
                  </td>
                  <td>{letter.reason}</td>
                  <td>{letter.failed_at ? new Date(letter.failed_at).toLocaleString() : '—'}</td>
                  <td>
                    <button
                      type="button"
                      aria-label={`Inspect ${letter.id}`}
                      onClick={() => setInspected(letter.id)}
                    >
                      Inspect
                    </button>{' '}
                    {mayReplay && (
                      <button
                        type="button"
                        aria-label={`Replay ${letter.id}`}
                        data-route="POST /v2/ops/dead-letters/:topic/replay"
                        disabled={replay.isPending}
                        onClick={() => setAsking({ ids: [letter.id] })}
                      >
                        Replay
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <LoadMore query={letters} label="Load more dead letters" />
        </>
      )}
      {inspected !== undefined && <Inspect topic={topic} id={inspected} />}
      {asking !== undefined && (
        <ConfirmDialog
          title={confirmQuestion(topic, asking)}
          confirmLabel="Replay"
          onCancel={() => setAsking(undefined)}
          onConfirm={() => {
            replay.mutate(asking);
            setAsking(undefined);
          }}
        />
      )}
    </section>
  );
}
