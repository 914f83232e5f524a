/**
 * One indexing job: a progress bar moved by live `index-job` events (the page patches the
 * cached job) and each file's outcome, failed files with their code and reason.
 */
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { getIndexJob, knowledgeKeys } from './knowledge-api.ts';
import { isFinished, progressOf } from './job-progress.ts';
import type { FileOutcome } from '../../api/types.ts';

/** How often an unfinished job is read again besides its live events (ms). */
const UNFINISHED_REFRESH_MS = 15_000;

function outcomeText(file: FileOutcome): string {
  if (file.status === 'pending') return 'waiting';
  if (file.status === 'indexed') {
    const parts = [`${file.chunks ?? 0} chunks`];
    if (file.pages !== undefined) parts.push(`${file.pages} pages`);
    if (file.sheets !== undefined) parts.push(`${file.sheets} sheets`);
    if (file.rows !== undefined) parts.push(`${file.rows} rows`);
    return parts.join(', ');
  }
  return '';
}

function FailedOutcome({ file }: { file: FileOutcome }) {
  return (
    <>
      <code>{file.error?.code ?? 'failed'}</code>
      {file.error?.reason !== undefined && <> ({file.error.reason})</>} {file.error?.message}
      {file.kept_chunks !== undefined && file.kept_chunks > 0 && (
        <> — {file.kept_chunks} chunks of the previous content kept</>
      )}
    </>
  );
}

export function JobPanel({ jobId }: { jobId: string }) {
  const headingId = useId();
  const job = useQuery({
    queryKey: knowledgeKeys.job(jobId),
    queryFn: () => getIndexJob(jobId),
    // Events move the bar; this only catches up when the event stream is down.
    refetchInterval: (query) =>
      query.state.data && isFinished(query.state.data.status) ? false : UNFINISHED_REFRESH_MS,
  });
  if (job.isPending) return <p role="status">Loading job {jobId}…</p>;
  if (job.isError)
    return <ErrorAlert what={`Job ${jobId} could not be loaded.`} error={job.error} />;
  const view = job.data;
  const numbers = progressOf(view);
  return (
    <section aria-labelledby={headingId} className="kn-job">
      <h3 id={headingId}>
        Job <code>{view.job_id}</code>: {view.status}
      </h3>
      <p>
        <progress
          max={100}
          value={numbers.percent}
          aria-labelledby={headingId}
          aria-valuetext={`${numbers.done} of ${numbers.total} files done`}
        />{' '}
        {numbers.done} of {numbers.total} files done
        {numbers.failed > 0 && <>, {numbers.failed} failed</>}, {view.progress.chunks_done} chunks
        {!isFinished(view.status) && view.attempts > 1 && <> (attempt {view.attempts})</>}
      </p>
      {view.error !== undefined && (
        <p role="alert" className="error-alert">
          {view.error}
        </p>
      )}
      <table>
        <caption className="ops-muted">Files of the job</caption>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Outcome</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {view.files.map((file) => (
            <tr key={file.name} className={file.status === 'failed' ? 'kn-file-failed' : undefined}>
              <td>{file.name}</td>
              <td>{file.status}</td>
              <td>
                {file.status === 'failed' ? <FailedOutcome file={file} /> : outcomeText(file)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
