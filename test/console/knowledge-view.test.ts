/** The knowledge pages' pure logic: snippets, sources, job progress from live events, names. */
import { expect } from 'chai';
import { citeSource } from '../../console/src/pages/knowledge/cite-source.ts';
import { collectionNameProblem } from '../../console/src/pages/knowledge/collection-name.ts';
import {
  applyIndexJobEvent,
  needsRefetch,
  parseIndexJobEvent,
  progressOf,
} from '../../console/src/pages/knowledge/job-progress.ts';
import type { IndexJob, IndexJobEvent } from '../../console/src/api/types.ts';
import { snippetParts } from '../../console/src/pages/knowledge/snippet-parts.ts';

function job(overrides: Partial<IndexJob> = {}): IndexJob {
  return {
    job_id: 'job_1',
    collection: 'shop-faq',
    status: 'running',
    progress: { files_total: 4, files_done: 1, chunks_done: 10 },
    files: [
      { name: 'a.pdf', status: 'indexed', chunks: 10, pages: 3 },
      { name: 'b.csv', status: 'pending' },
      { name: 'c.pdf', status: 'pending' },
      { name: 'd.xlsx', status: 'pending' },
    ],
    attempts: 1,
    created_at: '2026-11-25T10:00:00Z',
    started_at: '2026-11-25T10:00:01Z',
    finished_at: null,
    ...overrides,
  };
}

function event(overrides: Partial<IndexJobEvent> = {}): IndexJobEvent {
  return {
    job_id: 'job_1',
    collection: 'shop-faq',
    status: 'running',
    files_total: 4,
    files_done: 2,
    files_failed: 0,
    ...overrides,
  };
}

describe('console knowledge view', () => {
  describe('snippetParts', () => {
    it('when a snippet marks words, then they come out flagged and the rest as plain text', () => {
      expect(snippetParts('rent an <mark>e-bike</mark> for a <mark>day</mark>.')).to.deep.equal([
        { text: 'rent an ', marked: false },
        { text: 'e-bike', marked: true },
        { text: ' for a ', marked: false },
        { text: 'day', marked: true },
        { text: '.', marked: false },
      ]);
    });

    it('when the document text holds markup, then it stays text (nothing is parsed as HTML)', () => {
      const parts = snippetParts('<img src=x onerror=alert(1)> <mark><b>price</b></mark>');
      expect(parts).to.deep.equal([
        { text: '<img src=x onerror=alert(1)> ', marked: false },
        { text: '<b>price</b>', marked: true },
      ]);
    });

    it('when markers are stray or repeated, then the text around them is kept and joined', () => {
      expect(snippetParts('a</mark>b<mark>c<mark>d</mark></mark>e')).to.deep.equal([
        { text: 'ab', marked: false },
        { text: 'cd', marked: true },
        { text: 'e', marked: false },
      ]);
      expect(snippetParts('')).to.deep.equal([]);
      expect(snippetParts('<mark>only</mark>')).to.deep.equal([{ text: 'only', marked: true }]);
    });
  });

  describe('citeSource', () => {
    it('when a hit is from a PDF or a sheet, then its page or sheet and rows are named', () => {
      expect(citeSource({ file: 'manual.pdf', page: 3 })).to.equal('manual.pdf, page 3');
      expect(citeSource({ file: 'prices.xlsx', sheet: 'Bikes', rows: [2, 9] })).to.equal(
        'prices.xlsx, sheet Bikes, rows 2-9',
      );
      expect(citeSource({ file: 'faq.csv', sheet: 'faq', rows: [4, 4] })).to.equal(
        'faq.csv, sheet faq, row 4',
      );
    });
  });

  describe('job progress', () => {
    it('when a job runs, then the bar shows files done of total; once finished, full', () => {
      expect(progressOf(job())).to.deep.equal({ done: 1, total: 4, failed: 0, percent: 25 });
      const failed = job({
        status: 'partial',
        progress: { files_total: 2, files_done: 2, chunks_done: 5 },
        files: [
          { name: 'a.pdf', status: 'indexed', chunks: 5 },
          {
            name: 'b.pdf',
            status: 'failed',
            error: { code: 'BW_ERR_DOCUMENT_UNREADABLE', message: 'x' },
          },
        ],
      });
      expect(progressOf(failed)).to.deep.equal({ done: 2, total: 2, failed: 1, percent: 100 });
      const empty = job({
        status: 'queued',
        progress: { files_total: 0, files_done: 0, chunks_done: 0 },
      });
      expect(progressOf(empty).percent).to.equal(0);
    });

    it('when an event of the job arrives, then its status and counts apply', () => {
      const next = applyIndexJobEvent(job(), event({ files_done: 3 }));
      expect(next.progress).to.deep.equal({ files_total: 4, files_done: 3, chunks_done: 10 });
      expect(next.status).to.equal('running');
      expect(
        applyIndexJobEvent(job(), event({ status: 'succeeded', files_done: 4 })).status,
      ).to.equal('succeeded');
    });

    it('when an event is of another job or older than what is shown, then the job is unchanged', () => {
      const shown = job({ progress: { files_total: 4, files_done: 3, chunks_done: 30 } });
      expect(applyIndexJobEvent(shown, event({ job_id: 'job_2', files_done: 4 }))).to.equal(shown);
      expect(applyIndexJobEvent(shown, event({ files_done: 2 }))).to.equal(shown);
      const done = job({ status: 'succeeded' });
      expect(applyIndexJobEvent(done, event({ status: 'running', files_done: 4 }))).to.equal(done);
    });

    it('when a file or the job finishes, then the outcomes are fetched again; else not', () => {
      expect(needsRefetch(job(), event({ files_done: 2 }))).to.equal(true);
      expect(needsRefetch(job(), event({ files_done: 1, files_failed: 1 }))).to.equal(true);
      expect(needsRefetch(job(), event({ files_done: 1, status: 'failed' }))).to.equal(true);
      expect(needsRefetch(job(), event({ files_done: 1 }))).to.equal(false);
      expect(needsRefetch(job(), event({ job_id: 'job_2' }))).to.equal(false);
    });

    it('when event data is not an index-job event, then it is not parsed as one', () => {
      expect(parseIndexJobEvent(event())).to.deep.equal(event());
      expect(parseIndexJobEvent(null)).to.equal(undefined);
      expect(parseIndexJobEvent({ ...event(), files_done: '2' })).to.equal(undefined);
      expect(parseIndexJobEvent({ job_id: 'job_1' })).to.equal(undefined);
    });
  });

  describe('collectionNameProblem', () => {
    it('when a name is what the server accepts, then there is no problem; else one is said', () => {
      for (const ok of ['shop-faq', 'a', 'A1_b.c-d', 'x'.repeat(128)])
        expect(collectionNameProblem(ok), ok).to.equal(undefined);
      for (const bad of ['', '-lead', '.hidden', 'has space', 'a/b', 'x'.repeat(129)])
        expect(collectionNameProblem(bad), bad).to.be.a('string');
    });
  });
});
