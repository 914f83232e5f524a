/**
 * Route `bots/:appId/flow`: loads the bot's published flow and draft, then opens the editor on
 * the draft (or on the published flow when there is no draft). A failed load says why, with a
 * way to try again.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import type { ApiError } from '../../api/api-error.ts';
import { getBotFlow } from './flow-api.ts';
import { FlowEditor } from './flow-editor.tsx';
import './flow-editor.css';

export function FlowEditorPage() {
  const { appId = '' } = useParams();
  const query = useQuery({ queryKey: ['bot-flow', appId], queryFn: () => getBotFlow(appId) });
  if (query.isPending) {
    return (
      <div className="page-message">
        <p role="status">Loading the flow of bot {appId}…</p>
      </div>
    );
  }
  if (query.isError) {
    const error = query.error as ApiError;
    return (
      <div className="page-message">
        <h1>Flow of bot {appId}</h1>
        <div role="alert" className="error-box">
          <p>
            Could not load the flow: {error.message} ({error.code}).
          </p>
          {error.status === 401 && (
            <p>
              <Link to="/">Sign in</Link> first.
            </p>
          )}
          <button type="button" onClick={() => void query.refetch()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  return <FlowEditor key={appId} appId={appId} botFlow={query.data} />;
}
