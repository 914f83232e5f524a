/**
 * Live `index-job` events applied to the knowledge pages' cached answers: the job's bar and the
 * lists' statuses move from the event alone; a job's file outcomes are fetched again when a
 * file or the job finishes, the collection when a job finishes, a jobs list when a job is new.
 * A `reset` (events missed) refetches everything.
 */
import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import type { CollectionPage, IndexJob, JobPage } from '../../api/types.ts';
import { useLiveEvents, type LiveState } from '../ops-shared/use-live-events.ts';
import { knowledgeKeys } from './knowledge-api.ts';
import {
  applyIndexJobEvent,
  isFinished,
  needsRefetch,
  parseIndexJobEvent,
} from './job-progress.ts';
import { jobMissing, patchCollections, patchJobs } from './list-patches.ts';

const TYPES = ['index-job'] as const;

// An in-flight fetch is kept, not restarted: a burst of events costs one fetch.
const KEEP = { cancelRefetch: false } as const;

export function useIndexJobEvents(): LiveState {
  const queryClient = useQueryClient();
  return useLiveEvents(TYPES, {
    onEvent: (_type, data) => {
      const event = parseIndexJobEvent(data);
      if (!event) return;
      const jobKey = knowledgeKeys.job(event.job_id);
      const cached = queryClient.getQueryData<IndexJob>(jobKey);
      if (cached) {
        queryClient.setQueryData<IndexJob>(jobKey, applyIndexJobEvent(cached, event));
        if (needsRefetch(cached, event))
          void queryClient.invalidateQueries({ queryKey: jobKey }, KEEP);
      }
      queryClient.setQueryData<InfiniteData<CollectionPage>>(knowledgeKeys.collections, (list) => {
        const pages = list && patchCollections(list.pages, event);
        return list && pages !== list.pages ? { ...list, pages: pages ?? [] } : list;
      });
      const jobsKey = knowledgeKeys.jobs(event.collection);
      const jobs = queryClient.getQueryData<JobPage>(jobsKey);
      if (jobs && jobMissing(jobs, event))
        void queryClient.invalidateQueries({ queryKey: jobsKey }, KEEP);
      else if (jobs) queryClient.setQueryData(jobsKey, patchJobs(jobs, event));
      if (isFinished(event.status)) {
        // What is indexed (files, chunks, language) changes only when a job ends.
        const collection = knowledgeKeys.collection(event.collection);
        void queryClient.invalidateQueries({ queryKey: collection, exact: true }, KEEP);
        void queryClient.invalidateQueries(
          { queryKey: knowledgeKeys.collections, exact: true },
          KEEP,
        );
      }
    },
    onReset: () => {
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.collections });
      void queryClient.invalidateQueries({ queryKey: ['index-jobs'] });
    },
  });
}
