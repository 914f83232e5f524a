/**
 * Live events from the components, end to end in this process: edge, channel, language and flow
 * against real Redis and Postgres, Telegram on nock. A user's message and the bot's reply become
 * `message` events, the flow's move a `conversation` event, a dead letter a `dead-letter` event;
 * and an events stream that cannot be written does not stop a conversation.
 */
import { expect } from 'chai';
import nock from 'nock';
import { listDeadLetters } from '../src/shared/bus/dead-letters.ts';
import { topicKeys } from '../src/shared/bus/topics.ts';
import { eventsKey } from '../src/shared/events/types.ts';
import type { Service } from '../src/shared/process.ts';
import {
  captureTelegramTexts,
  createTelegramBot,
  postTelegramUpdate,
  startConversationComponents,
  startTestApi,
  telegramText,
  type TelegramTestBot,
  type TestApi,
} from './support/api.ts';
import { expectDescribedAs } from './support/openapi-answer.ts';
import { waitFor } from './support/services.ts';
import { openSse, type SseStream } from './support/sse.ts';

const FLOW = {
  version: 1,
  start: 'hello',
  states: {
    hello: {
      actions: [{ send: { text: 'Hi! Your name?' } }],
      wait: { store: 'name', expect: 'text' },
      next: 'thanks',
    },
    thanks: { actions: [{ send: { text: 'Thanks {{name}}.' } }], end: true },
  },
};

describe('live events from the pipeline (channel, flow, the bus)', function () {
  this.timeout(60_000);
  let t: TestApi;
  let bot: TelegramTestBot;
  let services: Service[] = [];
  let stream: SseStream;
  const sent: string[] = [];

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
    bot = await createTelegramBot(t, { name: 'events', flow: FLOW });
    captureTelegramTexts(sent);
    services = await startConversationComponents(t);
  });

  beforeEach(async () => {
    stream = await openSse(t.url, '/v2/events', { authorization: `Bearer ${t.adminKey}` });
  });

  afterEach(() => stream.close());

  after(async () => {
    for (const service of services) await service.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  it('when a Telegram user writes, then message events (in, then out) and a conversation event with the new state arrive', async () => {
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(501, 1, 'hello'));
    const messages = await stream.waitForEvents(2, 'message');
    const [inbound, outbound] = messages.map((e) => e.data);
    expect(inbound).to.include({
      app_id: bot.appId,
      channel_type: 'telegram',
      direction: 'in',
      message_type: 'text',
    });
    expect(outbound).to.include({ app_id: bot.appId, direction: 'out', status: 'sent' });
    expect(outbound.conversation_id).to.equal(inbound.conversation_id);
    const [conversation] = await stream.waitForEvents(1, 'conversation');
    expect(conversation!.data).to.deep.equal({
      app_id: bot.appId,
      conversation_id: inbound.conversation_id,
      channel_type: 'telegram',
      state: 'hello',
    });
    // The ids are the transcript's own.
    const transcript = await t.call('GET', `/v2/conversations/${inbound.conversation_id}/messages`);
    expectDescribedAs('message-page', transcript.json);
    const rows = transcript.json.items.map((m: any) => [String(m.id), m.direction]);
    expect(rows).to.deep.equal([
      [inbound.message_id, 'in'],
      [outbound.message_id, 'out'],
    ]);

    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(501, 2, 'Ana'));
    const moves = await stream.waitForEvents(2, 'conversation');
    expect(moves[1]!.data).to.include({ state: 'thanks', ended: true });
    await stream.waitForEvents(4, 'message');
  });

  it('when a topic entry is dead-lettered, then a dead-letter event names its topic, dead-letter id and code', async () => {
    const partition = topicKeys(t.prefix, 'channel', t.config.stream.partitions).partitions[0]!;
    await t.redis.xadd(partition, '*', 'data', 'not json');
    const [dead] = await stream.waitForEvents(1, 'dead-letter');
    // The id the dead-letter routes take: partition and entry.
    const letters = await listDeadLetters(t.redis, t.prefix, 'channel', t.config.stream.partitions);
    expect(dead!.data).to.deep.equal({
      topic: 'channel',
      id: letters[letters.length - 1]!.id,
      code: 'BW_ERR_MESSAGE_MALFORMED',
    });
  });

  it('when the events stream cannot be written, then conversations go on (events are best effort)', async () => {
    const key = eventsKey(t.prefix);
    await t.redis.del(key);
    await t.redis.set(key, 'not a stream'); // every XADD now fails with WRONGTYPE
    try {
      const before = sent.length;
      await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(502, 3, 'hello'));
      await waitFor(() => sent.length > before, { what: 'the greeting' });
      expect(sent[sent.length - 1]).to.equal('Hi! Your name?');
      await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(502, 4, 'Bo'));
      await waitFor(() => sent.includes('Thanks Bo.'), { what: 'the second turn' });
    } finally {
      await t.redis.del(key);
    }
  });
});
