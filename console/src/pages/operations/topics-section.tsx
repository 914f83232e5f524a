/** Each topic's backlog, pending entries and dead letters; choosing a topic shows its dead letters. */
import { useQuery } from '@tanstack/react-query';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { getTopics, opsKeys } from './operations-api.ts';
import { OPS_REFRESH_MS } from './processes-section.tsx';

export interface TopicsSectionProps {
  selected: string | undefined;
  onSelect: (topic: string) => void;
}

export function TopicsSection({ selected, onSelect }: TopicsSectionProps) {
  const topics = useQuery({
    queryKey: opsKeys.topics,
    queryFn: getTopics,
    refetchInterval: OPS_REFRESH_MS,
  });
  return (
    <section aria-labelledby="ops-topics-h">
      <h2 id="ops-topics-h">Topics</h2>
      {topics.isPending && <p role="status">Loading topics…</p>}
      {topics.isError && <ErrorAlert what="The topics could not be loaded." error={topics.error} />}
      {topics.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Topic</th>
              <th scope="col">Backlog</th>
              <th scope="col">Pending</th>
              <th scope="col">Dead letters</th>
            </tr>
          </thead>
          <tbody>
            {topics.data.topics.map((t) => (
              <tr key={t.topic} className={t.dead_letters > 0 ? 'ops-has-dead' : undefined}>
                <th scope="row">{t.topic}</th>
                <td>{t.backlog}</td>
                <td>{t.pending}</td>
                <td>
                  {t.dead_letters}{' '}
                  <button
                    type="button"
                    aria-pressed={selected === t.topic}
                    aria-label={`Show dead letters of ${t.topic}`}
                    onClick={() => onSelect(t.topic)}
                  >
                    Show
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
