/**
 * A handoff end to end in one process (nock for Telegram): edge, channel, language and flow
 * against real Redis and Postgres. A handoff step puts the conversation in a person's hands, the
 * bot stays quiet while the user goes on writing, and a `handoff` message on the flow topic (as
 * the admin API or the timeout sweeper publishes it) hands it back.
 */
import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChannel } from '../src/channel/worker.ts';
import { startFlow } from '../src/flow/worker.ts';
import { sweepHandoffs, timeoutTurnId } from '../src/flow/handoff-sweeper.ts';
import { startLanguage } from '../src/language/worker.ts';
import { Producer } from '../src/shared/bus/producer.ts';
import { eventsKey } from '../src/shared/events/types.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { ConversationRef } from '../src/shared/messages.ts';
import type { Service } from '../src/shared/process.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import {
  createTelegramBot,
  postTelegramUpdate,
  startTestApi,
  TELEGRAM_TOKEN,
  telegramText,
  topicMessages,
  type TestApi,
} from './support/api.ts';
import { HELP_FLOW } from './support/flows.ts';
import { waitFor } from './support/services.ts';
import { createWebBot, postVisitorMessage, startSession } from './support/web.ts';

const TG = 'https://telegram.example.test';

interface HandoffRow {
  id: string;
  status: string;
  queue: string | null;
  reason: string;
  ended_by: string | null;
  return_state: string | null;
  fallback_state: string | null;
}

describe('handoff pipeline (edge, channel, language, flow)', function () {
  this.timeout(30_000);
  let t: TestApi;
  let producer: Producer;
  let tg: { appId: string; secret: string };
  const services: Service[] = [];
  const logger = (component: string) => createLogger({ component, level: 'silent' });

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ HANDOFF_SWEEP_MS: '200' });
    tg = await createTelegramBot(t, { name: 'help desk', flow: HELP_FLOW });
    producer = new Producer({
      redis: t.redis,
      schemas: new SchemaRegistry(),
      prefix: t.prefix,
      maxLen: 10_000,
      partitions: t.config.stream.partitions,
    });
    services.push(
      await startChannel(t.config, logger('channel')),
      await startLanguage(t.config, logger('language')),
      await startFlow(t.config, logger('flow')),
    );
  });

  after(async () => {
    for (const service of services) await service.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  afterEach(() => nock.cleanAll());

  const db = () => t.schema.db;

  /** Texts Telegram is asked to send, in order. */
  const captureTexts = (): string[] => {
    const sent: string[] = [];
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .times(50)
      .reply((_uri, body) => {
        sent.push((body as { text: string }).text);
        return [200, { ok: true, result: { message_id: 1000 + sent.length } }];
      });
    return sent;
  };

  const tell = (chat: number, update: number, text: string) =>
    postTelegramUpdate(t, tg.appId, tg.secret, telegramText(chat, update, text));

  const conversationOf = async (chatId: string): Promise<ConversationRef> => {
    const { rows } = await db().raw<{
      rows: (ConversationRef & { user_language: string | null })[];
    }>(
      `select c.app_id, c.channel_id, ch.type as channel_type, c.id as conversation_id, c.chat_id,
              c.user_pid, c.language as user_language, b.language as bot_language
       from conversations c join channels ch on ch.id = c.channel_id join bots b on b.app_id = c.app_id
       where c.chat_id = ?`,
      [chatId],
    );
    const { user_language: language, ...ref } = rows[0]!;
    return { ...ref, ...(language ? { user_language: language } : {}) };
  };

  const handoffsOf = async (conversationId: string): Promise<HandoffRow[]> =>
    (
      await db().raw<{ rows: HandoffRow[] }>(
        `select id, status, queue, reason, ended_by, return_state, fallback_state
         from handoffs where conversation_id = ? order by created_at`,
        [conversationId],
      )
    ).rows;

  const stateOf = async (conversationId: string) =>
    (
      await db().raw<{ rows: { state: any; version: number; recent_turns: string[] }[] }>(
        `select state, version, recent_turns from conversation_state where conversation_id = ?`,
        [conversationId],
      )
    ).rows[0]!;

  const inboundTexts = async (conversationId: string): Promise<string[]> =>
    (
      await db().raw<{ rows: { text: string }[] }>(
        `select body->>'text' as text from messages
         where conversation_id = ? and direction = 'in' order by id`,
        [conversationId],
      )
    ).rows.map((r) => r.text);

  const handoffMessage = (
    conversation: ConversationRef,
    handoff: Record<string, unknown>,
    turnId = `test:${randomUUID()}`,
  ) => ({
    source: 'account:agent@example.test',
    turn_id: turnId,
    ordering_key: `${conversation.app_id}:${conversation.chat_id}`,
    intent: 'handoff',
    conversation,
    handoff,
  });

  /** Texts of the user's input on the flow topic, for a conversation. */
  const flowTexts = async (conversationId: string): Promise<string[]> =>
    (await topicMessages(t.redis, t.prefix, 'flow'))
      .filter(
        (m: any) => m.intent === 'user_input' && m.conversation.conversation_id === conversationId,
      )
      .map((m: any) => m.message.text as string);

  const handoffEvents = async (conversationId: string) =>
    (await t.redis.xrange(eventsKey(t.prefix), '-', '+'))
      .map(([, fields]) => fields)
      .filter((fields) => fields[1] === 'handoff')
      .map((fields) => JSON.parse(fields[fields.length - 1]!) as Record<string, unknown>)
      .filter((event) => event.conversation_id === conversationId);

  it('when a handoff step runs on Telegram, then the bot goes quiet for the user’s messages, a return resumes at the chosen state, and a duplicate return changes nothing', async () => {
    const sent = captureTexts();
    await tell(501, 1, 'hi');
    await waitFor(() => sent.length === 1, { what: 'the menu' });
    await tell(501, 2, 'help');
    await waitFor(() => sent.length === 2, { what: 'the handoff message' });
    expect(sent).to.deep.equal([
      'Menu: say help for a person.',
      'A person from billing will answer you.',
    ]);

    const conversation = await conversationOf('501');
    const id = conversation.conversation_id;
    const [open] = await handoffsOf(id);
    expect(open).to.deep.include({
      status: 'waiting',
      queue: 'billing',
      reason: 'step',
      fallback_state: 'sorry',
    });
    const waiting = await stateOf(id);
    expect(waiting.state.handoff.id).to.equal(open!.id);

    for (const [n, text] of ['one', 'two', 'three'].entries()) await tell(501, 3 + n, text);
    await waitFor(async () => (await inboundTexts(id)).length === 5, { what: 'the transcript' });
    expect(await inboundTexts(id)).to.deep.equal(['hi', 'help', 'one', 'two', 'three']);

    // Published once the three are on the flow topic: ordered after them (same ordering key), so
    // when its reply is sent they have been through flow.
    await waitFor(async () => (await flowTexts(id)).length === 5, { what: 'the input in flow' });
    await producer.publish(
      'flow',
      handoffMessage(conversation, { id: open!.id, action: 'return', state: 'survey' }),
    );
    await waitFor(() => sent.length === 3, { what: 'the resumed state' });
    expect(sent[2]).to.equal('How did we do?');
    const resumed = await stateOf(id);
    // None of the three reached the engine: one more write (the return) since the handoff.
    expect(resumed.version).to.equal(waiting.version + 1);
    expect(resumed.state.handoff).to.equal(undefined);
    expect(resumed.state.vars).to.not.have.property('rating');
    expect(resumed.state.awaiting).to.deep.include({ state: 'survey' });
    const [returned] = await handoffsOf(id);
    expect(returned).to.deep.include({
      status: 'returned',
      ended_by: 'account:agent@example.test',
      return_state: 'survey',
    });

    // The same return again, and once more with another turn id: nothing changes; the user's
    // next message (ordered after both) is answered by the survey.
    const again = handoffMessage(conversation, { id: open!.id, action: 'close' });
    await producer.publish('flow', again);
    await producer.publish('flow', again);
    await producer.publish(
      'flow',
      handoffMessage(conversation, { id: open!.id, action: 'return', state: 'menu' }),
    );
    await tell(501, 6, 'great');
    await waitFor(() => sent.length === 4, { what: 'the survey answer' });
    await sleep(300);
    expect(sent.slice(3)).to.deep.equal(['Thanks: great.']);
    expect((await handoffsOf(id)).map((h) => h.status)).to.deep.equal(['returned']);
    expect((await handoffEvents(id)).map((e) => e.status)).to.deep.equal(['waiting', 'returned']);
  });

  it('when nobody claims a handoff before its deadline, then the sweeper times it out once and the fallback state runs', async () => {
    const sent = captureTexts();
    await tell(502, 201, 'hi');
    await tell(502, 202, 'help');
    await waitFor(() => sent.length === 2, { what: 'the handoff message' });
    const conversation = await conversationOf('502');
    const id = conversation.conversation_id;
    const [open] = await handoffsOf(id);
    await db().raw(`update handoffs set deadline_at = now() - interval '1 second' where id = ?`, [
      open!.id,
    ]);
    // Two more sweepers race the flow process's own: one of the three publishes it.
    const published = await Promise.all([
      sweepHandoffs(db(), producer),
      sweepHandoffs(db(), producer),
    ]);
    await waitFor(() => sent.length === 4, { what: 'the fallback' });
    expect(sent.slice(2)).to.deep.equal([
      'Nobody is free; back to the bot.',
      'Menu: say help for a person.',
    ]);
    const [ended] = await handoffsOf(id);
    expect(ended).to.deep.include({ status: 'fallback', ended_by: 'flow' });
    const timeouts = (await topicMessages(t.redis, t.prefix, 'flow')).filter(
      (m: { turn_id: string }) => m.turn_id === timeoutTurnId(open!.id),
    );
    expect(timeouts).to.have.length(1);
    expect(published.reduce((a, b) => a + b, 0)).to.be.at.most(1);
    expect((await stateOf(id)).state.handoff).to.equal(undefined);
    // A timeout for a handoff already ended (a second sweeper's copy) changes nothing.
    await producer.publish(
      'flow',
      handoffMessage(conversation, { id: open!.id, action: 'timeout' }, `handoff:${open!.id}:x`),
    );
    await tell(502, 203, 'hello');
    await waitFor(() => sent.length === 5, { what: 'the menu again' });
    await sleep(300);
    expect(sent.length).to.equal(5);
    expect((await handoffEvents(id)).map((e) => e.status)).to.deep.equal(['waiting', 'fallback']);
  });

  it('when a claimed handoff’s deadline passes, then it is not timed out; a close ends it and the next message starts over', async () => {
    const sent = captureTexts();
    await tell(503, 301, 'hi');
    await tell(503, 302, 'help');
    await waitFor(() => sent.length === 2, { what: 'the handoff message' });
    const conversation = await conversationOf('503');
    const [open] = await handoffsOf(conversation.conversation_id);
    await db().raw(
      `update handoffs set status = 'claimed', claimed_by = 'account:a@example.test', claimed_at = now(),
       deadline_at = now() - interval '1 second' where id = ?`,
      [open!.id],
    );
    await producer.publish(
      'flow',
      handoffMessage(
        conversation,
        { id: open!.id, action: 'timeout' },
        `handoff:${open!.id}:timeout`,
      ),
    );
    await sleep(600);
    expect(sent.length).to.equal(2);
    expect((await handoffsOf(conversation.conversation_id))[0]!.status).to.equal('claimed');
    await producer.publish('flow', handoffMessage(conversation, { id: open!.id, action: 'close' }));
    await waitFor(
      async () => (await handoffsOf(conversation.conversation_id))[0]!.status === 'closed',
      {
        what: 'the close',
      },
    );
    expect(sent.length).to.equal(2);
    await tell(503, 303, 'hello');
    await waitFor(() => sent.length === 3, { what: 'a fresh start' });
    expect(sent[2]).to.equal('Menu: say help for a person.');
  });

  it('when a web visitor says a bot keyword, then a handoff opens with no queue, the bot is quiet, and a return resumes', async () => {
    const web = await createWebBot(t, { name: 'web desk', flow: HELP_FLOW });
    const patched = await t.call('PATCH', `/v2/bots/${web.appId}`, {
      body: { handoff: { keywords: ['Agent', 'human'], timeout_s: 600 } },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.json.handoff).to.deep.equal({ keywords: ['Agent', 'human'], timeout_s: 600 });
    const session = await startSession(t, web.appId);
    const say = async (text: string) => {
      const answer = await postVisitorMessage(t, web.appId, session.token, {
        client_message_id: randomUUID(),
        text,
      });
      expect(answer.status, answer.text).to.equal(202);
    };
    const outbound = async (conversationId: string): Promise<string[]> =>
      (
        await db().raw<{ rows: { text: string }[] }>(
          `select body->>'text' as text from messages
           where conversation_id = ? and direction = 'out' and status <> 'note' order by id`,
          [conversationId],
        )
      ).rows.map((r) => r.text);

    await say('hello');
    const conversationId = await waitFor(
      async () => {
        const { rows } = await db().raw<{ rows: { id: string }[] }>(
          'select id from conversations where app_id = ?',
          [web.appId],
        );
        return rows[0]?.id;
      },
      { what: 'the conversation' },
    );
    await waitFor(async () => (await outbound(conversationId)).length === 1, { what: 'the menu' });
    await say('  AGENT ');
    const [open] = await waitFor(
      async () => {
        const rows = await handoffsOf(conversationId);
        return rows.length > 0 ? rows : undefined;
      },
      { what: 'the handoff' },
    );
    expect(open).to.deep.include({
      status: 'waiting',
      queue: null,
      reason: 'keyword',
      fallback_state: 'menu',
    });
    const deadline = (
      await db().raw<{ rows: { s: number }[] }>(
        `select extract(epoch from deadline_at - created_at)::int as s from handoffs where id = ?`,
        [open!.id],
      )
    ).rows[0]!.s;
    expect(deadline).to.equal(600);
    await say('is anyone there?');
    await say('hello?');
    await waitFor(async () => (await flowTexts(conversationId)).length === 4, {
      what: 'the input in flow',
    });
    const conversation = {
      app_id: web.appId,
      channel_id: web.channelId,
      channel_type: 'web' as const,
      conversation_id: conversationId,
      chat_id: session.visitor_id,
      user_pid: '',
      bot_language: 'en',
    };
    const { rows } = await db().raw<{ rows: { user_pid: string; chat_id: string }[] }>(
      'select user_pid, chat_id from conversations where id = ?',
      [conversationId],
    );
    conversation.user_pid = rows[0]!.user_pid;
    conversation.chat_id = rows[0]!.chat_id;
    await producer.publish(
      'flow',
      handoffMessage(conversation, { id: open!.id, action: 'return', state: 'survey' }),
    );
    await waitFor(async () => (await outbound(conversationId)).length === 2, {
      what: 'the survey',
    });
    expect(await outbound(conversationId)).to.deep.equal([
      'Menu: say help for a person.',
      'How did we do?',
    ]);
    const inbound = (
      await db().raw<{ rows: { text: string }[] }>(
        `select body->>'text' as text from messages where conversation_id = ? and direction = 'in' order by id`,
        [conversationId],
      )
    ).rows.map((r) => r.text);
    expect(inbound).to.deep.equal(['hello', '  AGENT ', 'is anyone there?', 'hello?']);
  });
});
