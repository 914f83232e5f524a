/** The test chat as a page of its own (route `bots/:appId/chat`). */
import { Link, useParams } from 'react-router';
import { BotName } from '../../components/bot-name.tsx';
import { useMay } from '../../api/permissions.ts';
import { TestChat } from './test-chat.tsx';

export function TestChatPage() {
  const { appId = '' } = useParams();
  const may = useMay();
  return (
    <div className="test-chat-page">
      <h1>Test chat</h1>
      <p>
        <BotName appId={appId} /> ·{' '}
        {may('GET /v2/bots/:app_id/flow') && (
          <span data-route="GET /v2/bots/:app_id/flow">
            <Link to={`/bots/${appId}/flow`}>Flow editor</Link> ·{' '}
          </span>
        )}
        <Link to={`/bots/${appId}/conversations`}>Conversations</Link>
      </p>
      {may('POST /v2/bots/:app_id/test-chats') ? (
        <div data-route="POST /v2/bots/:app_id/test-chats">
          <TestChat appId={appId} />
        </div>
      ) : (
        <p>Owners and builders try bots here; your role reads their conversations.</p>
      )}
    </div>
  );
}
