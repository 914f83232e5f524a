/** The test chat as a page of its own (route `bots/:appId/chat`). */
import { Link, useParams } from 'react-router';
import { TestChat } from './test-chat.tsx';

export function TestChatPage() {
  const { appId = '' } = useParams();
  return (
    <div className="test-chat-page">
      <h1>Test chat</h1>
      <p>
        Bot <code>{appId}</code> · <Link to={`/bots/${appId}/conversations`}>Conversations</Link>
      </p>
      <TestChat appId={appId} />
    </div>
  );
}
