/**
 * Fault: the flow process dies (SIGKILL) while a handoff is open, and again while a return is
 * being applied. Every component runs as its own process. The user's messages written meanwhile
 * stay in the transcript in order, none reaches the flow, and the resumed state speaks once.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Producer } from '../../src/shared/bus/producer.ts';
import type { ConversationRef } from '../../src/shared/messages.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';
import { startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { postMessage } from '../support/fault-traffic.ts';
import { topicMessages } from '../support/api.ts';
import { waitFor } from '../support/services.ts';

const HELP_FLOW = {
  version: 1,
  start: 'menu',
  states: {
    menu: {
      actions: [{ send: { text: 'Menu: say help for a person.' } }],
      wait: { store: 'pick' },
      transitions: [{ when: { '==': [{ var: 'pick' }, 'help'] }, to: 'human' }, { to: 'menu' }],
    },
    human: { actions: [{ handoff: { message: 'A person will answer you.', fallback: 'menu' } }] },
    survey: {
      actions: [{ send: { text: 'How did we do?' } }],
      wait: { store: 'rating' },
      next: 'menu',
    },
  },
};

describe('faults: flow killed during a handoff', function () {
  this.timeout(240_000);
  let system: FaultSystem | undefined;

  before(async () => {
    system = await startFaultSystem({ settings: { HANDOFF_SWEEP_MS: '500' } });
    const patched = await system.admin('PATCH', `/v2/bots/${system.telegram.appId}`, {
      flow: HELP_FLOW,
    });
    if (patched.status !== 200) throw new Error(`flow not set: ${JSON.stringify(patched.json)}`);
  });

  after(async () => {
    await system?.close();
  });

  it('when flow is killed while a handoff is open and again while it returns, then the user’s messages are kept in order, none reaches the flow, and the resumed state speaks once', async () => {
    const sys = system!;
    const db = sys.schema.db;
    const chat = '880011';
    const user = { platform: 'telegram' as const, chat };
    const texts = () =>
      sys.stub.calls.filter((c) => c.chat === chat && c.delivered).map((c) => c.text);
    // The directory of the flow process learns the new flow by notification.
    await waitFor(
      async () => {
        await postMessage(sys, user, 'hi');
        return waitFor(() => texts().includes('Menu: say help for a person.'), {
          timeoutMs: 3000,
          what: 'the new flow',
        }).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: 60_000, what: 'the new flow in use' },
    );
    await postMessage(sys, user, 'help');
    await waitFor(() => texts().includes('A person will answer you.'), {
      timeoutMs: 30_000,
      what: 'the handoff',
    });
    const { rows } = await db.raw<{
      rows: (ConversationRef & { handoff_id: string; version: number })[];
    }>(
      `select c.app_id, c.channel_id, ch.type as channel_type, c.id as conversation_id, c.chat_id,
              c.user_pid, b.language as bot_language, h.id as handoff_id, s.version
       from conversations c join channels ch on ch.id = c.channel_id join bots b on b.app_id = c.app_id
       join handoffs h on h.conversation_id = c.id and h.status = 'waiting'
       join conversation_state s on s.conversation_id = c.id
       where c.chat_id = ?`,
      [chat],
    );
    const { handoff_id: handoffId, version, ...conversation } = rows[0]!;

    await sys.kill('flow');
    for (const text of ['one', 'two', 'three']) await postMessage(sys, user, text);
    const producer = new Producer({
      redis: sys.redis,
      schemas: new SchemaRegistry(),
      prefix: sys.prefix,
      maxLen: 10_000,
      partitions: Number(sys.env.TOPIC_PARTITIONS),
    });
    // The three on the flow topic (flow is down): the return is ordered after them.
    await waitFor(
      async () =>
        (await topicMessages(sys.redis, sys.prefix, 'flow')).filter(
          (m: any) =>
            m.intent === 'user_input' &&
            m.conversation.conversation_id === conversation.conversation_id &&
            ['one', 'two', 'three'].includes(m.message.text),
        ).length === 3,
      { timeoutMs: 30_000, what: 'the input in flow' },
    );
    const back = {
      source: 'account:agent@example.test',
      turn_id: `test:${randomUUID()}`,
      ordering_key: `${conversation.app_id}:${conversation.chat_id}`,
      intent: 'handoff',
      conversation,
      handoff: { id: handoffId, action: 'return', state: 'survey' },
    };
    await producer.publish('flow', back);
    await sys.restart('flow');
    // Killed again while it applies the return (or just after), then started once more.
    await sys.kill('flow');
    await producer.publish('flow', back);
    await sys.restart('flow');
    await waitFor(() => texts().includes('How did we do?'), {
      timeoutMs: 60_000,
      what: 'the resumed state',
    });
    await postMessage(sys, user, 'great');
    const stateNow = async () =>
      (
        await db.raw<{ rows: { state: { vars: Record<string, unknown> }; version: number }[] }>(
          'select state, version from conversation_state where conversation_id = ?',
          [conversation.conversation_id],
        )
      ).rows[0]!;
    await waitFor(async () => (await stateNow()).state.vars.rating === 'great', {
      timeoutMs: 30_000,
      what: 'the answer to the survey',
    }).catch(async (error: Error) => {
      const seen = await db.raw<{ rows: unknown[] }>(
        'select direction, body, status from messages where conversation_id = ? order by id',
        [conversation.conversation_id],
      );
      throw new Error(
        `${error.message}; state ${JSON.stringify(await stateNow())}; transcript ${JSON.stringify(seen.rows)}`,
      );
    });
    // Sent once each (a send the stub took but the caller gave up on is not counted delivered).
    expect(
      texts().filter((t) => t === 'How did we do?'),
      String(texts()),
    ).to.have.length(1);
    expect(
      texts().filter((t) => t === 'A person will answer you.'),
      String(texts()),
    ).to.have.length(1);
    const inbound = (
      await db.raw<{ rows: { text: string }[] }>(
        `select body->>'text' as text from messages where conversation_id = ? and direction = 'in' order by id`,
        [conversation.conversation_id],
      )
    ).rows.map((r) => r.text);
    expect(inbound.slice(-5)).to.deep.equal(['help', 'one', 'two', 'three', 'great']);
    const state = await stateNow();
    // Two writes since the handoff: the return and the answer to the survey; none for one, two, three.
    expect(state.version).to.equal(version + 2);
    expect(state.state.vars).to.include({ rating: 'great' });
    const ended = (
      await db.raw<{ rows: { status: string }[] }>('select status from handoffs where id = ?', [
        handoffId,
      ])
    ).rows[0]!;
    expect(ended.status).to.equal('returned');
  });
});
