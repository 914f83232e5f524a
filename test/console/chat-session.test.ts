/**
 * The test chat kept per bot and per flow tried in the tab's storage: anything else read as none,
 * and a draft chat dropped once the draft is at another revision.
 */
import { expect } from 'chai';
import {
  newClientMessageId,
  readChat,
  writeChat,
  type SessionStore,
  type StoredChat,
} from '../../console/src/pages/test-chat/chat-session.ts';

function memoryStore(): SessionStore & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

const draftChat: StoredChat = { chat_id: 't_1', source: { draft: 3 }, conversation_id: null };
const liveChat: StoredChat = { chat_id: 't_2', source: { version: 2 }, conversation_id: 'c' };

describe('test chat session', () => {
  it('when a chat is written for one bot and flow, then only that bot and flow read it back', () => {
    const store = memoryStore();
    writeChat(store, 'bot-a', 'current', liveChat);
    expect(readChat(store, 'bot-a', 'current', 2)).to.deep.equal(liveChat);
    expect(readChat(store, 'bot-b', 'current', 2)).to.equal(undefined);
    expect(readChat(store, 'bot-a', 'draft', 3)).to.equal(undefined);
  });

  it('when the draft is at another revision, or another version is live, than the stored chat ran, then none is read', () => {
    const store = memoryStore();
    writeChat(store, 'bot-a', 'draft', draftChat);
    expect(readChat(store, 'bot-a', 'draft', 3)).to.deep.equal(draftChat);
    expect(readChat(store, 'bot-a', 'draft', 4)).to.equal(undefined);
    expect(readChat(store, 'bot-a', 'draft')).to.equal(undefined);
    writeChat(store, 'bot-a', 'current', liveChat);
    expect(readChat(store, 'bot-a', 'current', 3)).to.equal(undefined);
  });

  it('when the stored value is not a chat, then none is read', () => {
    const store = memoryStore();
    store.setItem('botwire.test-chat.bot-a.current', '{not json');
    expect(readChat(store, 'bot-a', 'current', 2)).to.equal(undefined);
    store.setItem('botwire.test-chat.bot-a.current', JSON.stringify({ chat_id: 't_1' }));
    expect(readChat(store, 'bot-a', 'current', 2)).to.equal(undefined);
    store.setItem(
      'botwire.test-chat.bot-a.current',
      JSON.stringify({ ...liveChat, conversation_id: 7 }),
    );
    expect(readChat(store, 'bot-a', 'current', 2)).to.equal(undefined);
  });

  it('when a client message id is made, then it fits the message body (printable, 64 at most)', () => {
    const id = newClientMessageId(() => 'x'.repeat(100));
    expect(id).to.have.length(64);
    expect(id).to.match(/^[\x21-\x7e]+$/);
    const [a, b] = [newClientMessageId(), newClientMessageId()];
    expect(a).to.match(/^console-[0-9a-f]{32}$/);
    expect(a).to.not.equal(b);
  });
});
