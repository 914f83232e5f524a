/**
 * A conversation waiting in a state the current flow version lacks (`src/flow/removed-state.ts`),
 * against real Postgres: what its turn runs with, and the transcript note.
 */
import { expect } from 'chai';
import { restartIfRemoved } from '../src/flow/removed-state.ts';
import type { ConversationState } from '../src/flow/engine/types.ts';
import type { BotRecord } from '../src/shared/bots/types.ts';
import type { Flow } from '../src/shared/flows/types.ts';
import { createLogger } from '../src/shared/logger.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

const FLOW = {
  version: 1,
  start: 'hello',
  states: { hello: { wait: { store: 'x' }, next: 'hello' } },
} as unknown as Flow;

describe('flow: a conversation waiting in a removed state', () => {
  let t: TestSchema;
  let conversationId: string;
  const bot = { appId: 'b1', flowVersion: 4 } as BotRecord;
  const context = { log: createLogger({ component: 'flow', level: 'silent' }) };

  const notes = () =>
    t.db('messages').where({ conversation_id: conversationId, message_type: 'note' });

  before(async () => {
    t = await createTestSchema();
    await t.db('bots').insert({ app_id: 'b1', name: 'b', flow: FLOW, flow_version: 4 });
    const [channel] = await t
      .db('channels')
      .insert({ app_id: 'b1', type: 'telegram', credentials: 'sealed' })
      .returning('id');
    await t.db('users').insert({ pid: 'telegram:1' });
    const [conversation] = await t
      .db('conversations')
      .insert({ app_id: 'b1', channel_id: channel.id, user_pid: 'telegram:1', chat_id: '1' })
      .returning('id');
    conversationId = conversation.id;
  });

  after(async () => t?.drop());

  it('when an answer to an HTTP step of a removed state arrives, then the turn starts over at once and the note is written once, also when the turn is redelivered', async () => {
    const state: ConversationState = {
      state: 'lookup',
      vars: { order: 7 },
      language: 'de',
      awaiting: { kind: 'effect', request_id: 'r1', state: 'lookup', action_index: 0 },
    };
    const turn = {
      bot,
      flow: FLOW,
      state,
      event: { type: 'effect_result' as const, request_id: 'r1', ok: true, value: 1 },
      conversationId,
      turnId: 'turn-1',
    };
    const first = await restartIfRemoved(t.db, turn, context);
    expect(first).to.deep.equal({
      state: { state: null, vars: {}, language: 'de' },
      event: { type: 'reset' },
    });
    await restartIfRemoved(t.db, turn, context);
    const rows = await notes();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ direction: 'out', status: 'note', turn_id: 'turn-1' });
    expect(rows[0].body).to.include({ removed_state: 'lookup', flow_version: 4 });
  });

  it('when the state still exists, or the conversation ended in a removed one, then the turn runs unchanged and no note is written', async () => {
    const event = { type: 'input' as const, message_type: 'text', text: 'hi' };
    const waiting: ConversationState = {
      state: 'hello',
      vars: { x: 1 },
      awaiting: { kind: 'input', state: 'hello', retries: 0 },
    };
    const ended: ConversationState = { state: 'gone', vars: { x: 1 }, ended: true };
    for (const [i, state] of [waiting, ended].entries()) {
      const turn = { bot, flow: FLOW, state, event, conversationId, turnId: `turn-${i + 2}` };
      expect(await restartIfRemoved(t.db, turn, context)).to.deep.equal({ state, event });
    }
    expect(await notes()).to.have.length(1);
  });
});
