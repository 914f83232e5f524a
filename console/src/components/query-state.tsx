/**
 * The states of a list's query other than "here it is": loading, failed (with an optional way to
 * try again) and loaded but empty. Pages render it above their list so these read alike
 * everywhere.
 */
import { ErrorAlert } from './error-alert.tsx';

export interface QueryStateProps {
  query: { isPending: boolean; isError: boolean; error: unknown; isSuccess: boolean };
  /** Announced while the first answer is awaited. Default "Loading…". */
  loading?: string;
  /** What could not be done, shown before the error's code and message. */
  failed: string;
  /** Shown when the query succeeded with nothing to show; leave out when there is no such note. */
  empty?: string;
  /** Whether the loaded list has nothing to show (only read when `empty` is given). */
  isEmpty?: boolean;
  /** Offers a "Try again" button under the failure. */
  onRetry?: () => void;
}

export function QueryState({
  query,
  loading = 'Loading…',
  failed,
  empty,
  isEmpty = false,
  onRetry,
}: QueryStateProps) {
  if (query.isPending) return <p role="status">{loading}</p>;
  if (query.isError) {
    return (
      <>
        <ErrorAlert error={query.error} what={failed} />
        {onRetry && (
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        )}
      </>
    );
  }
  if (query.isSuccess && isEmpty && empty !== undefined) return <p>{empty}</p>;
  return null;
}
