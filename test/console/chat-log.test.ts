/**
 * The test chat's log: a sent message shows at once, its echo replaces it (never twice), a failed
 * send says why, and a replayed stream adds nothing already shown.
 */
import { expect } from 'chai';
import type { WebEvent } from '../../console/src/api/types.ts';
import type { MessageView } from '../../console/src/pages/conversations/message-model.ts';
import { chatLogReducer, echoKey } from '../../console/src/pages/test-chat/chat-log.ts';

const at = '2026-11-24T10:00:00.000Z';

function event(fields: Partial<WebEvent>): WebEvent {
  return {
    id: 'out:t1:0',
    conversation_id: 'c1',
    direction: 'out',
    turn_id: 't1',
    message_type: 'text',
    created_at: at,
    ...fields,
  };
}

describe('test chat log', () => {
  it('when a sent text is echoed, then one line remains and it is no longer pending', () => {
    let log = chatLogReducer([], {
      type: 'sent',
      clientMessageId: 'm1',
      createdAt: at,
      text: 'hi',
    });
    expect(log).to.have.length(1);
    expect(log[0]!.delivery).to.deep.equal({ status: 'pending' });
    log = chatLogReducer(log, {
      type: 'event',
      event: event({ id: echoKey('m1'), direction: 'in', text: 'hi' }),
    });
    expect(log).to.have.length(1);
    expect(log[0]).to.deep.include({ key: 'in:m1', side: 'user', text: 'hi' });
    expect(log[0]!.delivery).to.equal(undefined);
  });

  it('when a press is echoed with its id only, then the title pressed is kept', () => {
    let log = chatLogReducer([], {
      type: 'sent',
      clientMessageId: 'm2',
      createdAt: at,
      choice: { id: 'opt-9', title: 'Nine' },
    });
    log = chatLogReducer(log, {
      type: 'event',
      event: event({ id: echoKey('m2'), direction: 'in', choice_id: 'opt-9' }),
    });
    expect(log[0]!.choice).to.deep.equal({ id: 'opt-9', title: 'Nine' });
  });

  it('when a send fails, then its line says why and stays', () => {
    let log = chatLogReducer([], { type: 'sent', clientMessageId: 'm3', createdAt: at, text: 'x' });
    log = chatLogReducer(log, { type: 'failed', clientMessageId: 'm3', error: 'BW_ERR_AUTH: no' });
    expect(log).to.have.length(1);
    expect(log[0]!.delivery).to.deep.equal({ status: 'failed', error: 'BW_ERR_AUTH: no' });
  });

  it('when the stream is replayed, then each message is shown once, in stream order', () => {
    const events = [
      event({ id: 'in:a', direction: 'in', text: 'hello' }),
      event({ id: 'out:t1:0', text: 'Hi! Your name?' }),
      event({ id: 'out:t1:1', text: 'Or pick one', buttons: [{ id: 'x', title: 'X' }] }),
    ];
    let log = events.reduce(
      (l, e) => chatLogReducer(l, { type: 'event', event: e }),
      [] as MessageView[],
    );
    log = events.reduce((l, e) => chatLogReducer(l, { type: 'event', event: e }), log);
    expect(log.map((m) => m.key)).to.deep.equal(['in:a', 'out:t1:0', 'out:t1:1']);
    expect(log.map((m) => m.side)).to.deep.equal(['user', 'bot', 'bot']);
  });
});
