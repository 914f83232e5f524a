/**
 * The published versions, newest first: author, time, note and which states each added, removed
 * or changed; "View" opens one read-only in the editor.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import type { ApiError } from '../../api/api-error.ts';
import type { VersionSummary } from '../../api/types.ts';
import { listVersions } from './flow-api.ts';
import { SidePanel } from '../../components/side-panel.tsx';

interface VersionsPanelProps {
  appId: string;
  viewing: number | null;
  onView: (version: number) => void;
  onClose: () => void;
}

function Changes({ changes }: { changes: VersionSummary['changes'] }) {
  const parts: [string, string[]][] = [
    ['added', changes.added],
    ['removed', changes.removed],
    ['changed', changes.changed],
  ];
  const shown = parts.filter(([, names]) => names.length > 0);
  if (shown.length === 0) return <p className="muted">No state changed.</p>;
  return (
    <ul className="changes">
      {shown.map(([label, names]) => (
        <li key={label}>
          <span className={`tag tag-${label}`}>{label}</span> {names.join(', ')}
        </li>
      ))}
    </ul>
  );
}

export function VersionsPanel({ appId, viewing, onView, onClose }: VersionsPanelProps) {
  const query = useInfiniteQuery({
    queryKey: ['flow-versions', appId],
    queryFn: ({ pageParam }) => listVersions(appId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_after ?? undefined,
  });
  const versions = query.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <SidePanel
      title="Versions"
      closeLabel="Close versions"
      onClose={onClose}
      className="versions-panel"
    >
      {query.isPending && <p role="status">Loading versions…</p>}
      {query.isError && (
        <div role="alert" className="problem-text">
          <p>Could not load the versions: {(query.error as ApiError).message}</p>
          <button type="button" onClick={() => void query.refetch()}>
            Try again
          </button>
        </div>
      )}
      <ol className="versions">
        {versions.map((v) => (
          <li key={v.version} aria-current={viewing === v.version ? 'true' : undefined}>
            <div className="row spread">
              <strong>
                Version {v.version}
                {v.current && <span className="tag"> live</span>}
              </strong>
              <button type="button" onClick={() => onView(v.version)}>
                View version {v.version}
              </button>
            </div>
            <div className="muted">
              {v.author} ·{' '}
              <time dateTime={v.created_at}>{new Date(v.created_at).toLocaleString()}</time>
            </div>
            {v.note && <p>{v.note}</p>}
            <Changes changes={v.changes} />
          </li>
        ))}
      </ol>
      {query.hasNextPage && (
        <button
          type="button"
          disabled={query.isFetchingNextPage}
          onClick={() => void query.fetchNextPage()}
        >
          Older versions
        </button>
      )}
    </SidePanel>
  );
}
