/** Live index-job events applied to the knowledge lists (collections, a collection's jobs). */
import { expect } from 'chai';
import type {
  CollectionItem,
  CollectionPage,
  IndexJobEvent,
  JobPage,
} from '../../console/src/api/types.ts';
import {
  jobMissing,
  patchCollections,
  patchJobs,
} from '../../console/src/pages/knowledge/list-patches.ts';

const item = (name: string, last: CollectionItem['last_job']): CollectionItem => ({
  name,
  owner_app_id: null,
  shared: false,
  files: 1,
  chunks: 2,
  updated_at: null,
  last_job: last,
});

const event = (overrides: Partial<IndexJobEvent> = {}): IndexJobEvent => ({
  job_id: 'job_2',
  collection: 'faq',
  status: 'running',
  files_total: 2,
  files_done: 0,
  files_failed: 0,
  ...overrides,
});

const counts = { collection: 'faq', files_total: 1, files_done: 0, files_failed: 0 };

describe('console knowledge lists', () => {
  const pages: CollectionPage[] = [
    { items: [item('bikes', null)], next_after: 'bikes' },
    { items: [item('faq', { job_id: 'job_1', status: 'succeeded' })], next_after: null },
  ];

  it('when a job of a listed collection moves, then it becomes its last job with the status', () => {
    const next = patchCollections(pages, event());
    expect(next[1]!.items[0]!.last_job).to.deep.equal({ job_id: 'job_2', status: 'running' });
    expect(next[0]).to.equal(pages[0]);
    expect(pages[1]!.items[0]!.last_job!.job_id).to.equal('job_1');
  });

  it('when nothing listed changes, then the same pages come back (no re-render)', () => {
    expect(patchCollections(pages, event({ collection: 'other' }))).to.equal(pages);
    const same = event({ job_id: 'job_1', status: 'succeeded' });
    expect(patchCollections(pages, same)).to.equal(pages);
  });

  it('when a listed job moves, then its status and counts change; an unlisted one is reported missing', () => {
    const jobs: JobPage = {
      items: [
        { ...counts, job_id: 'job_2', status: 'queued' },
        { ...counts, job_id: 'job_1', status: 'succeeded', files_done: 1 },
      ],
      next_after: null,
    };
    expect(patchJobs(jobs, event()).items.map((j) => j.status)).to.deep.equal([
      'running',
      'succeeded',
    ]);
    expect(patchJobs(jobs, event({ files_done: 1 })).items[0]).to.deep.include({
      files_total: 2,
      files_done: 1,
      files_failed: 0,
    });
    const counted = patchJobs(jobs, event());
    expect(patchJobs(counted, event())).to.equal(counted);
    expect(patchJobs(jobs, event({ job_id: 'job_3' }))).to.equal(jobs);
    expect(jobMissing(jobs, event({ job_id: 'job_3' }))).to.equal(true);
    expect(jobMissing(jobs, event())).to.equal(false);
  });
});
