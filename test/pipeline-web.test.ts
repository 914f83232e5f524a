/**
 * The web channel end to end in one process: edge, channel, language and flow against real Redis
 * and Postgres (on a single Redis server and on the private cluster); the visitor's side through
 * the HTTP routes and the SSE stream.
 */
import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { startChannel } from '../src/channel/worker.ts';
import { startFlow } from '../src/flow/worker.ts';
import { startLanguage } from '../src/language/worker.ts';
import { Producer, PRODUCER_SCRIPTS } from '../src/shared/bus/producer.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { Service } from '../src/shared/process.ts';
import { createRedis } from '../src/shared/redis.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import { VisitorStreams, visitorStreamKey, WEB_SCRIPTS } from '../src/shared/web/visitor-stream.ts';
import { startTestApi, type TestApi } from './support/api.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { waitFor } from './support/services.ts';
import { openSse, type SseStream } from './support/sse.ts';
import {
  createWebBot,
  eventsUrl,
  postVisitorMessage,
  SHOP_ORIGIN,
  startSession,
  type VisitorSession,
} from './support/web.ts';

const SHOP_FLOW = {
  version: 1,
  start: 'welcome',
  states: {
    welcome: {
      actions: [
        {
          send: {
            text: 'Hi! What do you need?',
            image: { url: 'https://cdn.example.test/shop.png', caption: 'Our shop' },
            buttons: [
              { id: 'hours', title: 'Opening hours' },
              { id: 'book', title: 'Book a repair' },
            ],
          },
        },
      ],
      wait: { store: 'choice', expect: 'choice' },
      transitions: [{ when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'hours' }, { to: 'book' }],
    },
    hours: { actions: [{ send: { text: 'We are open 9 to 5.' } }], end: true },
    book: {
      actions: [
        {
          send: {
            text: 'Which day?',
            list: {
              button: 'Days',
              sections: [
                {
                  title: 'This week',
                  rows: [
                    { id: 'mon', title: 'Monday' },
                    { id: 'tue', title: 'Tuesday', description: 'afternoons only' },
                  ],
                },
              ],
            },
          },
        },
      ],
      wait: { store: 'day', expect: 'choice' },
      next: 'booked',
    },
    booked: {
      actions: [
        {
          send: {
            text: 'Booked for {{day}}.',
            document: { url: 'https://cdn.example.test/terms.pdf', filename: 'terms.pdf' },
          },
        },
      ],
      end: true,
    },
  },
};

forEachRedisMode('web channel pipeline (edge, channel, language, flow)', function (mode) {
  this.timeout(30_000);
  let t: TestApi;
  let appId: string;
  let channelId: string;
  const services: Service[] = [];
  const clients: SseStream[] = [];
  const logger = (component: string) => createLogger({ component, level: 'silent' });

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ REDIS_URL: mode.url() });
    ({ appId, channelId } = await createWebBot(t, { name: 'web shop', flow: SHOP_FLOW }));
    services.push(
      await startChannel(t.config, logger('channel')),
      await startLanguage(t.config, logger('language')),
      await startFlow(t.config, logger('flow')),
    );
  });

  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  after(async () => {
    for (const service of services) await service.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  const listen = async (session: VisitorSession, lastEventId?: string): Promise<SseStream> => {
    const client = await openSse(eventsUrl(t, appId, session.token, lastEventId), '', {
      origin: SHOP_ORIGIN,
    });
    expect(client.status).to.equal(200);
    clients.push(client);
    return client;
  };

  const say = async (session: VisitorSession, body: Record<string, unknown>) => {
    const answer = await postVisitorMessage(t, appId, session.token, {
      client_message_id: randomUUID(),
      ...body,
    });
    expect(answer.status, answer.text).to.equal(202);
    return answer;
  };

  const transcript = async (conversationId: string) =>
    (await t.call('GET', `/v2/conversations/${conversationId}/messages?limit=100`)).json.items as {
      direction: string;
      message_type: string;
    }[];

  it('when a visitor writes, presses a button and picks a row, then each reply arrives on the event stream in order, with their own messages between', async () => {
    const session = await startSession(t, appId);
    const events = await listen(session);
    await say(session, { text: 'hello' });
    await events.waitForEvents(3);
    const [echo, image, greeting] = events.events.map((e) => e.data);
    expect(echo).to.deep.include({ direction: 'in', message_type: 'text', text: 'hello' });
    expect(image).to.deep.include({
      direction: 'out',
      message_type: 'image',
      image: { url: 'https://cdn.example.test/shop.png', caption: 'Our shop' },
    });
    expect(greeting).to.deep.include({
      direction: 'out',
      message_type: 'button',
      text: 'Hi! What do you need?',
      buttons: [
        { id: 'hours', title: 'Opening hours' },
        { id: 'book', title: 'Book a repair' },
      ],
    });
    expect(greeting.conversation_id).to.be.a('string').and.equal(echo.conversation_id);
    expect(greeting.turn_id).to.equal(echo.turn_id);

    await say(session, { button_id: 'book' });
    await events.waitForEvents(5);
    const [press, list] = events.events.slice(3).map((e) => e.data);
    expect(press).to.deep.include({
      direction: 'in',
      message_type: 'interactive_reply',
      choice_id: 'book',
    });
    expect(list).to.deep.include({
      message_type: 'option_list',
      text: 'Which day?',
      list: {
        button: 'Days',
        sections: [
          {
            title: 'This week',
            rows: [
              { id: 'mon', title: 'Monday' },
              { id: 'tue', title: 'Tuesday', description: 'afternoons only' },
            ],
          },
        ],
      },
    });

    await say(session, { list_row_id: 'tue' });
    await events.waitForEvents(8);
    const tail = events.events.slice(5).map((e) => e.data);
    expect(tail.map((e) => [e.direction, e.message_type])).to.deep.equal([
      ['in', 'interactive_reply'],
      ['out', 'document'],
      ['out', 'text'],
    ]);
    expect(tail[1].document).to.deep.equal({
      url: 'https://cdn.example.test/terms.pdf',
      filename: 'terms.pdf',
    });
    expect(tail[2].text).to.equal('Booked for tue.');

    // The renewed session names the conversation; the transcript has both sides.
    const renewed = await startSession(t, appId, session.token);
    expect(renewed.conversation_id).to.equal(echo.conversation_id);
    const rows = await transcript(echo.conversation_id);
    expect(rows.filter((r) => r.direction === 'in')).to.have.length(3);
    expect(rows.filter((r) => r.direction === 'out')).to.have.length(5);
  });

  it('when a visitor sends the same client message id twice, then it is handled once: one echo, one reply, one transcript row', async () => {
    const session = await startSession(t, appId);
    const events = await listen(session);
    const body = { client_message_id: 'same-id', text: 'hello' };
    const first = await postVisitorMessage(t, appId, session.token, body);
    const second = await postVisitorMessage(t, appId, session.token, body);
    expect([first.json.duplicate, second.json.duplicate]).to.deep.equal([false, true]);
    await events.waitForEvents(3);
    // A later message proves the pipeline has moved past the duplicate.
    await say(session, { button_id: 'hours' });
    await events.waitForEvents(5);
    const texts = events.events.map((e) => `${e.data.direction}:${e.data.message_type}`);
    expect(texts).to.deep.equal([
      'in:text',
      'out:image',
      'out:button',
      'in:interactive_reply',
      'out:text',
    ]);
    const rows = await transcript(events.events[0]!.data.conversation_id);
    expect(rows.filter((r) => r.direction === 'in')).to.have.length(2);
  });

  it('when a second tab opens, or a tab reconnects with Last-Event-ID, then it sees the conversation so far, then only what it has not seen', async () => {
    const session = await startSession(t, appId);
    const tab1 = await listen(session);
    await say(session, { text: 'hello' });
    await tab1.waitForEvents(3);
    const tab2 = await listen(session);
    await tab2.waitForEvents(3);
    expect(tab2.events.map((e) => e.id)).to.deep.equal(tab1.events.map((e) => e.id));

    const lastSeen = tab1.events[2]!.id!;
    tab1.close();
    await say(session, { button_id: 'hours' });
    await tab2.waitForEvents(5);
    const resumed = await listen(session, lastSeen);
    // A new conversation after the end: three more events that both tabs must show.
    await say(session, { text: 'again' });
    await tab2.waitForEvents(8);
    await resumed.waitForEvents(5);
    expect(resumed.events.map((e) => e.id)).to.deep.equal(tab2.events.slice(3).map((e) => e.id));
  });

  it("when a visitor asks its events from a position past 64 bits, then it is refused 400, and another bot's visitor receives its echo within 5 s while that position is asked for", async () => {
    const hostile = await startSession(t, appId);
    const other = await createWebBot(t, { name: 'other shop', flow: SHOP_FLOW });
    // Each part of a stream id is an unsigned 64-bit integer: these pass a digits-only check.
    const positions = [
      '99999999999999999999-0',
      '18446744073709551616-0',
      '0-18446744073709551616',
    ];
    const asked: SseStream[] = [];
    for (const [i, position] of positions.entries()) {
      const url = eventsUrl(t, appId, hostile.token, i === 0 ? position : undefined);
      asked.push(await openSse(url, '', i === 0 ? {} : { 'last-event-id': position }));
    }
    clients.push(...asked);
    const visitor = await startSession(t, other.appId);
    const stream = await openSse(eventsUrl(t, other.appId, visitor.token), '', {
      origin: SHOP_ORIGIN,
    });
    clients.push(stream);
    const sent = await postVisitorMessage(t, other.appId, visitor.token, {
      client_message_id: randomUUID(),
      text: 'hello',
    });
    expect(sent.status).to.equal(202);
    const [echo] = await stream.waitForEvents(1, 'message', 5000);
    expect(echo!.data).to.include({ direction: 'in', text: 'hello' });
    expect(asked.map((a) => [a.status, a.json?.error?.code])).to.deep.equal(
      positions.map(() => [400, 'BW_ERR_SCHEMA']),
    );
    // The largest id there is is a position like any other.
    const last = await openSse(
      eventsUrl(t, appId, hostile.token, '18446744073709551615-18446744073709551615'),
      '',
    );
    clients.push(last);
    expect(last.status).to.equal(200);
  });

  it('when a channel process died after showing a reply and before recording it, then the redelivered reply is shown once and recorded', async () => {
    const session = await startSession(t, appId);
    const events = await listen(session);
    await say(session, { text: 'hello' });
    await events.waitForEvents(3);
    const conversation = events.events[0]!.data;
    // What the process that died did: the reply's first call appended, no transcript row.
    const redis = createRedis(mode.url(), { scripts: { ...WEB_SCRIPTS, ...PRODUCER_SCRIPTS } });
    try {
      const streams = new VisitorStreams({ redis, prefix: t.prefix, maxLen: 100, ttlS: 600 });
      const turnId = randomUUID();
      await streams.append(appId, session.visitor_id, {
        id: `out:${turnId}:0.0`,
        conversation_id: conversation.conversation_id,
        direction: 'out',
        turn_id: turnId,
        message_type: 'text',
        text: 'first of two',
        created_at: new Date().toISOString(),
      });
      // The turn, delivered again to a live channel process.
      const producer = new Producer({
        redis,
        schemas: new SchemaRegistry(),
        prefix: t.prefix,
        maxLen: 10_000,
        partitions: t.config.stream.partitions,
      });
      await producer.publish('channel', {
        source: 'test',
        turn_id: turnId,
        ordering_key: conversation.conversation_id,
        intent: 'channel_out',
        bot_output: {
          conversation: {
            app_id: appId,
            channel_id: channelId,
            channel_type: 'web',
            conversation_id: conversation.conversation_id,
            chat_id: session.visitor_id,
            user_pid: `web:${session.visitor_id}`,
            bot_language: 'en',
          },
          messages: [
            { message_type: 'text', text: 'first of two' },
            { message_type: 'text', text: 'second of two' },
          ],
        },
      });
      await events.waitForEvents(5);
      await waitFor(
        async () =>
          (await transcript(conversation.conversation_id)).filter((r) => r.direction === 'out')
            .length === 4,
        { what: 'both calls recorded' },
      );
      expect(events.events.slice(3).map((e) => e.data.text)).to.deep.equal([
        'first of two',
        'second of two',
      ]);
      expect(await redis.xlen(visitorStreamKey(t.prefix, appId, session.visitor_id))).to.equal(5);
    } finally {
      redis.disconnect();
    }
  });
});
