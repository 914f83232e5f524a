/**
 * The refetch a page's live events ask for: `trigger` reads `queryKeys` again (`readAgain`: a read
 * sent after the event, not one already under way), coalesced (at most once per `waitMs`, see
 * coalesce.ts) and dropped when the page goes away.
 */
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { readAgain } from '../../api/read-again.ts';
import { coalesce } from './coalesce.ts';

export function useLiveRefresh(queryKeys: readonly QueryKey[], waitMs: number): () => void {
  const queryClient = useQueryClient();
  // Keys are built anew on every render: compare them by value, as TanStack Query does.
  const keys = JSON.stringify(queryKeys);
  const refresh = useMemo(
    () =>
      coalesce(() => {
        for (const queryKey of JSON.parse(keys) as QueryKey[]) {
          void readAgain(queryClient, queryKey);
        }
      }, waitMs),
    [queryClient, keys, waitMs],
  );
  useEffect(() => () => refresh.cancel(), [refresh]);
  return refresh.trigger;
}
