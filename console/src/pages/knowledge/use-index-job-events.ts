/**
 * Live `index-job` events applied to the knowledge pages' cached answers: the job's bar moves
 * from the event alone; its file outcomes, the collection and the lists are fetched again when a
 * file or the job finishes. A `reset` (events missed) refetches everything.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useLiveEvents, type LiveState } from '../ops-shared/use-live-events.ts';
import { knowledgeKeys } from './knowledge-api.ts';
import {
  applyIndexJobEvent,
  isFinished,
  needsRefetch,
  parseIndexJobEvent,
} from './job-progress.ts';
import type { IndexJob } from './knowledge-types.ts';

const TYPES = ['index-job'] as const;

export function useIndexJobEvents(): LiveState {
  const queryClient = useQueryClient();
  return useLiveEvents(TYPES, {
    onEvent: (_type, data) => {
      const event = parseIndexJobEvent(data);
      if (!event) return;
      const key = knowledgeKeys.job(event.job_id);
      const cached = queryClient.getQueryData<IndexJob>(key);
      if (cached) {
        queryClient.setQueryData<IndexJob>(key, applyIndexJobEvent(cached, event));
        // An in-flight fetch is kept, not restarted: a burst of events costs one fetch.
        if (needsRefetch(cached, event))
          void queryClient.invalidateQueries({ queryKey: key }, { cancelRefetch: false });
      }
      if (event.status === 'queued' || isFinished(event.status)) {
        void queryClient.invalidateQueries(
          { queryKey: knowledgeKeys.collection(event.collection), exact: true },
          { cancelRefetch: false },
        );
        void queryClient.invalidateQueries(
          { queryKey: knowledgeKeys.jobs(event.collection) },
          { cancelRefetch: false },
        );
        void queryClient.invalidateQueries(
          { queryKey: knowledgeKeys.collections, exact: true },
          { cancelRefetch: false },
        );
      }
    },
    onReset: () => {
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.collections });
      void queryClient.invalidateQueries({ queryKey: ['index-jobs'] });
    },
  });
}
