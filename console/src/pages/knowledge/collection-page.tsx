/**
 * One collection (`/console/knowledge/:name`): its documents, uploads, indexing with live
 * progress per job, how it is searched by meaning, a search box, and its knowledge gaps.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/api-error.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { LiveBadge } from '../ops-shared/live-badge.tsx';
import '../ops-shared/ops-shared.css';
import { JobPanel } from './job-panel.tsx';
import { isFinished } from './job-progress.ts';
import {
  getCollection,
  knowledgeKeys,
  listJobs,
  startIndexing,
  uploadFiles,
} from './knowledge-api.ts';
import type { CollectionDetail } from '../../api/types.ts';
import { KnowledgeGaps } from './knowledge-gaps.tsx';
import { SearchPanel } from './search-panel.tsx';
import { SearchSettings } from './search-settings.tsx';
import { UploadDrop } from './upload-drop.tsx';
import { useIndexJobEvents } from './use-index-job-events.ts';
import './knowledge.css';
import { useMay } from '../../api/permissions.ts';
import { CollectionAccess } from './collection-access.tsx';

function Documents({ detail }: { detail: CollectionDetail }) {
  return (
    <section aria-labelledby="kn-docs-h">
      <h2 id="kn-docs-h">Documents</h2>
      <p>
        {detail.indexed
          ? `Indexed: ${detail.indexed.files} files, ${detail.indexed.chunks} chunks, language ${detail.indexed.language}` +
            (detail.indexed.at ? `, ${new Date(detail.indexed.at).toLocaleString()}` : '')
          : 'Not indexed yet.'}{' '}
        {detail.owner_app_id
          ? `Owned by bot ${detail.owner_app_id}${detail.shared ? ', shared' : ''}.`
          : detail.shared
            ? 'Shared with every bot.'
            : 'No owner yet.'}
      </p>
      {detail.uploaded_files.length === 0 ? (
        <p>No documents uploaded.</p>
      ) : (
        <ul aria-label="Uploaded documents">
          {detail.uploaded_files.map((file) => (
            <li key={file}>{file}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Upload({ name }: { name: string }) {
  const replaceId = useId();
  const [replace, setReplace] = useState(false);
  const queryClient = useQueryClient();
  const upload = useMutation({
    mutationFn: (files: File[]) => uploadFiles(name, files, replace),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: knowledgeKeys.collection(name), exact: true }),
  });
  return (
    <section aria-labelledby="kn-upload-h" data-route="POST /v2/collections/:name/files">
      <h2 id="kn-upload-h">Upload</h2>
      <UploadDrop
        label="Choose documents to upload"
        disabled={upload.isPending}
        onFiles={(files) => upload.mutate(files)}
      />
      <p>
        <input
          id={replaceId}
          type="checkbox"
          checked={replace}
          onChange={(event) => setReplace(event.currentTarget.checked)}
        />{' '}
        <label htmlFor={replaceId}>Replace documents of the same name</label>
      </p>
      {upload.isPending && <p role="status">Uploading…</p>}
      {upload.isError && <ErrorAlert what="The upload was refused." error={upload.error} />}
      {upload.isSuccess && (
        <p role="status">
          Uploaded {upload.data.files.map((f) => `${f.name} (${f.bytes} bytes)`).join(', ')}. Start
          indexing to make them searchable.
        </p>
      )}
    </section>
  );
}

function Indexing({
  name,
  lastJobId,
  mayStart,
}: {
  name: string;
  lastJobId: string | undefined;
  /** Whether the caller may start a job (builders and owners); the jobs are shown to all. */
  mayStart: boolean;
}) {
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const jobs = useQuery({ queryKey: knowledgeKeys.jobs(name), queryFn: () => listJobs(name) });
  const start = useMutation({
    mutationFn: () => startIndexing(name),
    onSuccess: (started) => {
      setChosen(started.job_id);
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.jobs(name) });
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.collection(name), exact: true });
    },
  });
  const shown = chosen ?? lastJobId;
  // Every unfinished job gets its own live bar, besides the one chosen (or the last).
  const running = (jobs.data?.items ?? [])
    .filter((job) => !isFinished(job.status) && job.job_id !== shown)
    .map((job) => job.job_id);
  return (
    <section aria-labelledby="kn-index-h">
      <h2 id="kn-index-h">Indexing</h2>
      {mayStart && (
        <button
          type="button"
          data-route="POST /v2/collections/:name/index"
          disabled={start.isPending}
          onClick={() => start.mutate()}
        >
          {start.isPending ? 'Starting…' : 'Start indexing'}
        </button>
      )}
      {start.isError && <ErrorAlert what="Indexing could not start." error={start.error} />}
      {shown !== undefined && <JobPanel jobId={shown} />}
      {running.map((jobId) => (
        <JobPanel key={jobId} jobId={jobId} />
      ))}
      {/* A collection not made yet has no jobs: its 404 is already shown above. */}
      {jobs.isError && !(jobs.error instanceof ApiError && jobs.error.status === 404) && (
        <ErrorAlert what="The jobs could not be loaded." error={jobs.error} />
      )}
      {jobs.data && jobs.data.items.length > 0 && (
        <>
          <h3>Recent jobs</h3>
          <ul className="kn-jobs">
            {jobs.data.items.map((job) => (
              <li key={job.job_id}>
                <button
                  type="button"
                  aria-pressed={job.job_id === shown}
                  onClick={() => setChosen(job.job_id)}
                >
                  {job.job_id}
                </button>{' '}
                {job.status}
                {job.files_total !== undefined && (
                  <>
                    , {job.files_done ?? 0} of {job.files_total} files
                    {(job.files_failed ?? 0) > 0 && `, ${job.files_failed} failed`}
                  </>
                )}
                {job.created_at && (
                  <span className="ops-muted"> {new Date(job.created_at).toLocaleString()}</span>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function CollectionPage() {
  const name = useParams().name ?? '';
  const live = useIndexJobEvents();
  const may = useMay();
  const detail = useQuery({
    queryKey: knowledgeKeys.collection(name),
    queryFn: () => getCollection(name),
  });
  return (
    <div className="ops-page">
      <p>
        <Link to="/knowledge">All collections</Link>
      </p>
      <header className="ops-header">
        <h1>
          Collection <code>{name}</code>
        </h1>
        <LiveBadge state={live} />
      </header>
      {detail.isPending && <p role="status">Loading the collection…</p>}
      {detail.isError && (
        <ErrorAlert what="The collection could not be loaded." error={detail.error} />
      )}
      {detail.data && <Documents detail={detail.data} />}
      {may('POST /v2/collections/:name/files') && <Upload name={name} />}
      <Indexing
        name={name}
        lastJobId={detail.data?.last_job?.job_id}
        mayStart={may('POST /v2/collections/:name/index')}
      />
      {detail.data && may('PATCH /v2/collections/:name') && (
        <CollectionAccess name={name} detail={detail.data} />
      )}
      {detail.data && <SearchSettings name={name} detail={detail.data} />}
      <SearchPanel name={name} threshold={detail.data?.min_similarity_effective} />
      <KnowledgeGaps name={name} />
    </div>
  );
}
