/**
 * The bot's conversation tests beside the flow editor: each by name, Run (against the saved
 * draft, or the published version when there is none) with its results, and Delete (asked
 * first). Tests are made in the test chat ("Save as test") or written as JSON through the API.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useMay } from '../../api/permissions.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { SidePanel } from '../../components/side-panel.tsx';
import { RunResults } from './run-results.tsx';
import { deleteTest, listTests, runTests, testKeys } from './tests-api.ts';

export function TestsPanel({ appId, onClose }: { appId: string; onClose: () => void }) {
  const may = useMay();
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<string | null>(null);
  const tests = useQuery({ queryKey: testKeys.list(appId), queryFn: () => listTests(appId) });
  const run = useMutation({ mutationFn: () => runTests(appId) });
  const remove = useMutation({
    mutationFn: (name: string) => deleteTest(appId, name),
    onSuccess: () => {
      setDeleting(null);
      return queryClient.invalidateQueries({ queryKey: testKeys.list(appId) });
    },
  });
  return (
    <SidePanel title="Conversation tests" closeLabel="Close tests" onClose={onClose}>
      <p className="muted">
        Each test replays a conversation and checks the bot&apos;s replies. They run before every
        publish; a failing test stops it.
        {may('POST /v2/bots/:app_id/tests/from-chat') && ' Save one from the test chat.'}
      </p>
      <QueryState
        query={tests}
        loading="Loading tests…"
        failed="Could not load the tests."
        empty="No tests yet."
        isEmpty={tests.data?.length === 0}
      />
      {tests.data && tests.data.length > 0 && (
        <ul aria-label="Tests">
          {tests.data.map((t) => (
            <li key={t.name}>
              {t.name} <span className="muted">({t.test.steps.length} steps)</span>{' '}
              {may('DELETE /v2/bots/:app_id/tests/:name') && (
                <button
                  type="button"
                  data-route="DELETE /v2/bots/:app_id/tests/:name"
                  aria-label={`Delete test ${t.name}`}
                  onClick={() => setDeleting(t.name)}
                >
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {may('POST /v2/bots/:app_id/tests/run') && (
        <button
          type="button"
          className="primary"
          data-route="POST /v2/bots/:app_id/tests/run"
          disabled={run.isPending || !tests.data?.length}
          onClick={() => run.mutate()}
        >
          {run.isPending ? 'Running…' : 'Run tests on the draft'}
        </button>
      )}
      {run.isError && <ErrorAlert what="Could not run the tests." error={run.error} />}
      {run.data && <RunResults run={run.data} />}
      {deleting !== null && (
        <ConfirmDialog
          title={`Delete test ${deleting}?`}
          confirmLabel={remove.isPending ? 'Deleting…' : 'Delete'}
          danger
          busy={remove.isPending}
          onCancel={() => setDeleting(null)}
          onConfirm={() => remove.mutate(deleting)}
        >
          <p>It no longer runs before a publish. It cannot be brought back.</p>
          {remove.isError && <ErrorAlert what="Could not delete." error={remove.error} />}
        </ConfirmDialog>
      )}
    </SidePanel>
  );
}
