/** The conversations pages read live events defensively: what lacks a needed field is ignored. */
import { expect } from 'chai';
import {
  readLiveConversation,
  readLiveMessage,
  withLiveState,
} from '../../console/src/pages/conversations/live-events.ts';

const message = {
  app_id: 'a',
  conversation_id: 'c',
  channel_type: 'web',
  direction: 'out',
  message_id: '12',
  message_type: 'text',
  created_at: '2026-11-24T10:00:00.000Z',
};

describe('console live events', () => {
  it('when a message event has its fields, then it is read; when one is missing, then not', () => {
    expect(readLiveMessage(message)).to.deep.equal(message);
    expect(readLiveMessage({ ...message, direction: 'sideways' })).to.equal(undefined);
    expect(readLiveMessage({ ...message, conversation_id: 5 })).to.equal(undefined);
    expect(readLiveMessage('text')).to.equal(undefined);
  });

  it('when a conversation event has no state, then the detail shows none', () => {
    const event = readLiveConversation({ app_id: 'a', conversation_id: 'c', channel_type: 'web' });
    expect(event).to.not.equal(undefined);
    const detail = withLiveState({ id: 'c', state: 'ask' }, event!);
    expect(detail).to.deep.equal({ id: 'c', state: null });
    expect(readLiveConversation({ app_id: 'a', conversation_id: 'c', state: 3 })).to.equal(
      undefined,
    );
  });
});
