/**
 * Live `index-job` events applied to the lists (collections, a collection's jobs), so a job's
 * status shows without a refetch. Pages are kept as they are when nothing in them changes, so
 * TanStack Query does not re-render for events of other collections.
 */
import type { CollectionPage, IndexJobEvent, JobPage, JobSummary } from '../../api/types.ts';

/** The collections' pages with the event's job as the collection's last job. */
export function patchCollections(pages: CollectionPage[], event: IndexJobEvent): CollectionPage[] {
  let changed = false;
  const next = pages.map((page) => {
    if (!page.items.some((c) => c.name === event.collection)) return page;
    return {
      ...page,
      items: page.items.map((c) => {
        if (c.name !== event.collection) return c;
        if (c.last_job?.job_id === event.job_id && c.last_job.status === event.status) return c;
        changed = true;
        // Live events are newer than the list: a job not shown yet is the collection's last.
        return { ...c, last_job: { job_id: event.job_id, status: event.status } };
      }),
    };
  });
  return changed ? next : pages;
}

/**
 * A jobs page with the event's status and file counts on its job. A job not in the page is not added (its
 * creation time and place in the order come from the server: the caller refetches then).
 */
export function patchJobs(page: JobPage, event: IndexJobEvent): JobPage {
  const index = page.items.findIndex((j) => j.job_id === event.job_id);
  const job = page.items[index];
  if (!job) return page;
  const { status, files_total, files_done, files_failed } = event;
  const next = { ...job, status, files_total, files_done, files_failed };
  if ((Object.keys(next) as (keyof JobSummary)[]).every((k) => next[k] === job[k])) return page;
  return { ...page, items: page.items.map((j, i) => (i === index ? next : j)) };
}

/** Whether a jobs page lacks the event's job (a new job: the list is fetched again). */
export function jobMissing(page: JobPage, event: IndexJobEvent): boolean {
  return !page.items.some((j) => j.job_id === event.job_id);
}
