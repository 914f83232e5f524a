/**
 * Knowledge (`/console/knowledge`): the collections, with their size and last job, and a new
 * collection made by uploading its first documents.
 */
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { LiveBadge } from '../ops-shared/live-badge.tsx';
import '../ops-shared/ops-shared.css';
import { collectionNameProblem } from './collection-name.ts';
import { knowledgeKeys, listCollections, uploadFiles } from './knowledge-api.ts';
import { UploadDrop } from './upload-drop.tsx';
import { useIndexJobEvents } from './use-index-job-events.ts';
import './knowledge.css';
import { LoadMore } from '../../components/load-more.tsx';
import { useMay } from '../../api/permissions.ts';

function CollectionsTable() {
  const collections = useInfiniteQuery({
    queryKey: knowledgeKeys.collections,
    queryFn: ({ pageParam }) => listCollections(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_after ?? undefined,
  });
  if (collections.isPending) return <p role="status">Loading collections…</p>;
  // A failed next page leaves the pages already loaded: they stay, with the error below them.
  if (collections.isError && !collections.isFetchNextPageError)
    return <ErrorAlert what="The collections could not be loaded." error={collections.error} />;
  const items = collections.data?.pages.flatMap((page) => page.items) ?? [];
  if (items.length === 0) return <p>No collections yet: upload documents below to make one.</p>;
  return (
    <>
      <table>
        <caption className="ops-muted">Collections</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Owner</th>
            <th scope="col">Uploaded</th>
            <th scope="col">Indexed files</th>
            <th scope="col">Chunks</th>
            <th scope="col">Updated</th>
            <th scope="col">Last job</th>
          </tr>
        </thead>
        <tbody>
          {items.map((c) => (
            <tr key={c.name}>
              <td>
                <Link to={`/knowledge/${encodeURIComponent(c.name)}`}>{c.name}</Link>
              </td>
              <td>
                {c.owner_app_id ?? <span className="ops-muted">none</span>}
                {c.shared && ' (shared)'}
              </td>
              <td>{c.uploaded_files ?? '—'}</td>
              <td>{c.files}</td>
              <td>{c.chunks}</td>
              <td>{c.updated_at ? new Date(c.updated_at).toLocaleString() : '—'}</td>
              <td>{c.last_job ? c.last_job.status : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {collections.isFetchNextPageError && (
        <ErrorAlert what="More collections could not be loaded." error={collections.error} />
      )}
      <LoadMore query={collections} label="Load more collections" />
    </>
  );
}

function NewCollection() {
  const nameId = useId();
  const problemId = useId();
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const upload = useMutation({
    mutationFn: (files: File[]) => uploadFiles(name, files, false),
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.collections, exact: true });
      void navigate(`/knowledge/${encodeURIComponent(result.collection)}`);
    },
  });
  const problem = collectionNameProblem(name);
  return (
    <section aria-labelledby={`${nameId}-h`} data-route="POST /v2/collections/:name/files">
      <h2 id={`${nameId}-h`}>New collection</h2>
      <p className="ops-muted">A collection is made by uploading its first documents.</p>
      <p>
        <label htmlFor={nameId}>Collection name</label>{' '}
        <input
          id={nameId}
          value={name}
          maxLength={128}
          aria-invalid={touched && problem !== undefined}
          aria-describedby={problem && (touched || name !== '') ? problemId : undefined}
          onChange={(event) => setName(event.currentTarget.value.trim())}
          onBlur={() => setTouched(true)}
        />
      </p>
      {problem && (touched || name !== '') && (
        <p id={problemId} className="kn-field-problem">
          {problem}
        </p>
      )}
      {name === '' && <p className="ops-muted">Name the collection to upload its documents.</p>}
      <UploadDrop
        label="Choose documents to upload"
        disabled={problem !== undefined || upload.isPending}
        onFiles={(files) => upload.mutate(files)}
      />
      {upload.isPending && <p role="status">Uploading…</p>}
      {upload.isError && <ErrorAlert what="The upload was refused." error={upload.error} />}
    </section>
  );
}

export function KnowledgePage() {
  const live = useIndexJobEvents();
  const may = useMay();
  return (
    <div className="ops-page">
      <header className="ops-header">
        <h1>Knowledge</h1>
        <LiveBadge state={live} />
      </header>
      <CollectionsTable />
      {may('POST /v2/collections/:name/files') && <NewCollection />}
    </div>
  );
}
