/**
 * The test chat's stored visitor session: one per bot in the tab's storage, anything else read as
 * none, renewed an hour before its token expires.
 */
import { expect } from 'chai';
import {
  forgetSession,
  needsRenewal,
  newClientMessageId,
  readSession,
  writeSession,
  type SessionStore,
} from '../../console/src/pages/test-chat/chat-session.ts';
import type { WebSession } from '../../console/src/api/types.ts';

function memoryStore(): SessionStore & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

const session: WebSession = {
  visitor_id: 'v1',
  token: 'tok',
  expires_at: '2026-12-01T00:00:00.000Z',
  conversation_id: null,
};

describe('test chat session', () => {
  it('when a session is written for one bot, then only that bot reads it back', () => {
    const store = memoryStore();
    writeSession(store, 'bot-a', session);
    expect(readSession(store, 'bot-a')).to.deep.equal(session);
    expect(readSession(store, 'bot-b')).to.equal(undefined);
    forgetSession(store, 'bot-a');
    expect(readSession(store, 'bot-a')).to.equal(undefined);
  });

  it('when the stored value is not a session, then none is read', () => {
    const store = memoryStore();
    store.setItem('botwire.test-chat.bot-a', '{not json');
    expect(readSession(store, 'bot-a')).to.equal(undefined);
    store.setItem('botwire.test-chat.bot-a', JSON.stringify({ visitor_id: 'v1' }));
    expect(readSession(store, 'bot-a')).to.equal(undefined);
  });

  it('when the token expires within the hour, then it needs renewal, and not before', () => {
    expect(needsRenewal(session, new Date('2026-11-30T22:30:00.000Z'))).to.equal(false);
    expect(needsRenewal(session, new Date('2026-11-30T23:30:00.000Z'))).to.equal(true);
    expect(needsRenewal({ ...session, expires_at: 'soon' }, new Date())).to.equal(true);
  });

  it('when a client message id is made, then it fits the web channel (printable, 64 at most)', () => {
    const id = newClientMessageId(() => 'x'.repeat(100));
    expect(id).to.have.length(64);
    expect(id).to.match(/^[\x21-\x7e]+$/);
    const [a, b] = [newClientMessageId(), newClientMessageId()];
    expect(a).to.match(/^console-[0-9a-f]{32}$/);
    expect(a).to.not.equal(b);
  });
});
