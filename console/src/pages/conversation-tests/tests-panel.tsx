/**
 * The bot's conversation tests beside the flow editor: each by name, Run (against the saved
 * draft, or the published version when there is none) with its results, and Delete. Tests are
 * made in the test chat ("Save as test") or written as JSON through the API.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorText } from '../../api/api-error.ts';
import { useMay } from '../../api/permissions.ts';
import { RunResults } from './run-results.tsx';
import { deleteTest, listTests, runTests, testKeys } from './tests-api.ts';

export function TestsPanel({ appId, onClose }: { appId: string; onClose: () => void }) {
  const may = useMay();
  const queryClient = useQueryClient();
  const tests = useQuery({ queryKey: testKeys.list(appId), queryFn: () => listTests(appId) });
  const run = useMutation({ mutationFn: () => runTests(appId) });
  const remove = useMutation({
    mutationFn: (name: string) => deleteTest(appId, name),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: testKeys.list(appId) }),
  });
  return (
    <section aria-labelledby="tests-title" className="tests-panel">
      <header className="panel-header">
        <h2 id="tests-title">Conversation tests</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      <p className="muted">
        Each test replays a conversation and checks the bot&apos;s replies. They run before every
        publish; a failing test stops it. Save one from the test chat.
      </p>
      {tests.isError && <div role="alert">Could not load the tests: {errorText(tests.error)}</div>}
      {tests.data?.length === 0 && <p>No tests yet.</p>}
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
                  disabled={remove.isPending}
                  onClick={() => remove.mutate(t.name)}
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
      {run.isError && <div role="alert">Could not run the tests: {errorText(run.error)}</div>}
      {remove.isError && <div role="alert">Could not delete: {errorText(remove.error)}</div>}
      {run.data && <RunResults run={run.data} />}
    </section>
  );
}
