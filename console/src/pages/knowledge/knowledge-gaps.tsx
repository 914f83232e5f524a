/**
 * The knowledge gaps: the questions bots asked this collection that no passage answered well
 * enough, newest first, each with its best similarity and a link to its conversation.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError } from '../../api/api-error.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { knowledgeKeys, listUnanswered } from './knowledge-api.ts';

export function KnowledgeGaps({ name }: { name: string }) {
  const gaps = useInfiniteQuery({
    queryKey: knowledgeKeys.unanswered(name),
    queryFn: ({ pageParam }) => listUnanswered(name, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_after ?? undefined,
  });
  const items = gaps.data?.pages.flatMap((page) => page.items);
  return (
    <section aria-labelledby="kn-gaps-h">
      <h2 id="kn-gaps-h">Knowledge gaps</h2>
      {gaps.isError &&
        (gaps.error instanceof ApiError && gaps.error.status === 404 ? (
          <p>
            The questions bots could not answer from this collection appear here once it is indexed.
          </p>
        ) : (
          <ErrorAlert what="The knowledge gaps could not be loaded." error={gaps.error} />
        ))}
      {items && items.length === 0 && (
        <p>No unanswered questions: every question found a relevant passage.</p>
      )}
      {items && items.length > 0 && (
        <table>
          <caption>Questions without a good answer, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Question</th>
              <th scope="col">Best similarity</th>
              <th scope="col">Asked</th>
              <th scope="col">Conversation</th>
            </tr>
          </thead>
          <tbody>
            {items.map((gap) => (
              <tr key={gap.id}>
                <td>{gap.question}</td>
                <td>{gap.best_score === null ? '—' : gap.best_score.toFixed(3)}</td>
                <td>{new Date(gap.created_at).toLocaleString()}</td>
                <td>
                  {gap.conversation_id ? (
                    <Link to={`/conversations/${gap.conversation_id}`}>Open the conversation</Link>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {gaps.hasNextPage && (
        <button
          type="button"
          disabled={gaps.isFetchingNextPage}
          onClick={() => void gaps.fetchNextPage()}
        >
          {gaps.isFetchingNextPage ? 'Loading…' : 'Older questions'}
        </button>
      )}
    </section>
  );
}
