/**
 * The conversation pipeline end to end, in one process for nock's sake: edge, channel, language
 * and flow against real Redis and Postgres; stand-in Telegram and WhatsApp APIs.
 */
import { expect } from 'chai';
import nock from 'nock';
import { startChannel } from '../src/channel/worker.ts';
import { startFlow } from '../src/flow/worker.ts';
import { VOICE_UNSUPPORTED } from '../src/language/handle.ts';
import { startLanguage } from '../src/language/worker.ts';
import { botTurnsKey } from '../src/shared/bot-turns.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { Service } from '../src/shared/process.ts';
import {
  createTelegramBot,
  postTelegramUpdate,
  startTestApi,
  TELEGRAM_TOKEN,
  telegramPress,
  telegramText,
  type TestApi,
} from './support/api.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { waitFor } from './support/services.ts';
import { whatsappMessage } from './support/voice-stubs.ts';

const TG = 'https://telegram.example.test';
const WA = 'https://graph.example.test';
const NUMBER = '700800900';

const SHOP_FLOW = {
  version: 1,
  start: 'welcome',
  states: {
    welcome: {
      actions: [
        {
          send: {
            text: 'Hi {{user_name}}! What do you need?',
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
                  rows: [
                    { id: 'mon', title: 'Monday' },
                    { id: 'tue', title: 'Tuesday' },
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
    booked: { actions: [{ send: { text: 'Booked for {{day}}.' } }], end: true },
  },
};

forEachRedisMode('conversation pipeline (edge, channel, language, flow)', (mode) => {
  let t: TestApi;
  const services: Record<string, Service> = {};
  let tg: { appId: string; secret: string };
  const logger = (component: string) => createLogger({ component, level: 'silent' });

  const startComponents = async (...names: ('channel' | 'language' | 'flow')[]) => {
    for (const name of names) {
      const start = { channel: startChannel, language: startLanguage, flow: startFlow }[name];
      services[name] = await start(t.config, logger(name));
    }
  };

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ REDIS_URL: mode.url() });
    tg = await createTelegramBot(t, { name: 'shop', flow: SHOP_FLOW });
    await startComponents('channel', 'language', 'flow');
  });

  after(async () => {
    for (const service of Object.values(services)) await service.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  afterEach(() => nock.cleanAll());

  const update = (body: Record<string, unknown>) =>
    postTelegramUpdate(t, tg.appId, tg.secret, body);

  /**
   * The bodies of the next `times` sendMessage calls on the stand-in Telegram API, in order; the
   * n-th call (from 1) gets message id `firstId + n`.
   */
  const captureSendMessage = (times = 1, firstId = 0): Record<string, unknown>[] => {
    const sent: Record<string, unknown>[] = [];
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .times(times)
      .reply(
        (_uri, body) => (
          sent.push(body as Record<string, unknown>),
          [200, { ok: true, result: { message_id: firstId + sent.length } }]
        ),
      );
    return sent;
  };

  it('when a Telegram user writes, then the greeting comes back with buttons; a press is answered and the next state speaks', async () => {
    const sent = captureSendMessage(3);
    await update(telegramText(42, 1, 'hello', { first_name: 'Ana' }));
    await waitFor(() => sent.length === 1, { what: 'the greeting' });
    expect(sent[0]).to.deep.include({
      chat_id: '42',
      reply_markup: {
        inline_keyboard: [
          [{ text: 'Opening hours', callback_data: 'hours' }],
          [{ text: 'Book a repair', callback_data: 'book' }],
        ],
      },
    });

    const answered = nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/answerCallbackQuery`, { callback_query_id: 'q1' })
      .reply(200, { ok: true, result: true });
    await update(telegramPress(42, 2, 'q1', 'hours', 1));
    await waitFor(() => sent.length === 2, { what: 'the next state' });
    expect(answered.isDone()).to.be.true;
    expect(sent[1]).to.deep.equal({ chat_id: '42', text: 'We are open 9 to 5.' });
  });

  it('when flow restarts between two messages, then the conversation goes on where it was', async () => {
    const sent = captureSendMessage(3, 100);
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/answerCallbackQuery`)
      .times(2)
      .reply(200, { ok: true, result: true });
    await update(telegramText(77, 10, 'hi'));
    await waitFor(() => sent.length === 1, { what: 'the greeting' });
    await services.flow!.close();
    await startComponents('flow');
    await update(telegramPress(77, 11, 'q2', 'book', 101));
    await waitFor(() => sent.length === 2, { what: 'the day list' });
    expect(sent[1]).to.deep.include({ chat_id: '77', text: 'Which day?' });
    await update(telegramPress(77, 12, 'q3', 'tue', 102));
    await waitFor(() => sent.length === 3, { what: 'the booking' });
    expect(sent[2]).to.deep.equal({ chat_id: '77', text: 'Booked for tue.' });
  });

  it('when a WhatsApp user writes and picks from the list, then the Cloud API gets buttons, the list, and the answer', async () => {
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'wa shop',
        flow: SHOP_FLOW,
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: NUMBER, access_token: 'wa-token' },
        },
      },
    });
    expect(created.status).to.equal(201);
    const bodies: { type: string; interactive?: { type: string }; text?: { body: string } }[] = [];
    nock(WA)
      .post(`/v21.0/${NUMBER}/messages`)
      .times(4)
      .reply(
        (_uri, body) => (
          bodies.push(body as (typeof bodies)[number]),
          [200, { messages: [{ id: `wamid.out${bodies.length}` }] }]
        ),
      );
    const inbound = (id: string, message: Record<string, unknown>) =>
      t.call('POST', '/callback', {
        auth: false,
        body: whatsappMessage(NUMBER, '155', id, message),
      });
    await inbound('wamid.a', { type: 'text', text: { body: 'hola' } });
    await waitFor(() => bodies.length === 1, { what: 'the greeting' });
    expect(bodies[0]!.interactive?.type).to.equal('button');
    await inbound('wamid.b', {
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'book', title: 'Book a repair' } },
    });
    await waitFor(() => bodies.length === 2, { what: 'the list' });
    expect(bodies[1]!.interactive?.type).to.equal('list');
    await inbound('wamid.c', {
      type: 'interactive',
      interactive: { type: 'list_reply', list_reply: { id: 'mon', title: 'Monday' } },
    });
    await waitFor(() => bodies.length === 3, { what: 'the booking' });
    expect(bodies[2]).to.deep.include({
      type: 'text',
      text: { body: 'Booked for mon.', preview_url: false },
    });
  });

  it('when a voice message arrives and no speech provider is configured, then the user is told voice is not supported', async () => {
    const sent = captureSendMessage();
    await update({
      update_id: 20,
      message: {
        message_id: 20,
        date: 1,
        chat: { id: 88, type: 'private' },
        from: { id: 88 },
        voice: { file_id: 'voice-88', mime_type: 'audio/ogg', duration: 3 },
      },
    });
    await waitFor(() => sent.length === 1, { what: 'the notice' });
    expect(sent[0]).to.deep.equal({ chat_id: '88', text: VOICE_UNSUPPORTED });
  });

  it('when an HTTP step answers with U+0000 and a lone surrogate in its JSON, then the flow stores it mended and replies', async () => {
    const crm = nock('https://crm.example.test')
      .get('/who')
      .reply(200, '{"name":"A\\u0000na \\ud800!","tags":{"v\\u0000ip":true}}', {
        'content-type': 'application/json',
      });
    const bot = await createTelegramBot(t, {
      name: 'crm',
      flow: {
        version: 1,
        start: 'look',
        states: {
          look: {
            actions: [
              { http: { method: 'GET', url: 'https://crm.example.test/who', store: 'who' } },
              { send: { text: 'Hello {{who.body.name}}' } },
            ],
            end: true,
          },
        },
      },
    });
    const sent = captureSendMessage();
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(505, 1, 'hi'));
    // Without the mend the state cannot be stored and the turn fails; its retry calls the CRM
    // again, finds no answer here, and the reply lacks the name.
    await waitFor(() => sent.length === 1, { what: 'the reply' });
    expect(crm.isDone()).to.be.true;
    expect(sent[0]).to.deep.equal({ chat_id: '505', text: 'Hello Ana \uFFFD!' });
    const [row] = await t.schema
      .db('conversation_state')
      .where({ app_id: bot.appId })
      .select(t.schema.db.raw('state::text as text'));
    expect(row.text).to.include('"name": "Ana \uFFFD!"').and.include('"vip": true');
  });

  it('when the admin API lists the conversation, then its transcript holds both directions in order', async () => {
    const conversations = await t.call('GET', `/v2/bots/${tg.appId}/conversations`);
    expect(conversations.json.items.length).to.be.greaterThan(0);
    const chat = conversations.json.items.find((c: { chat_id: string }) => c.chat_id === '42');
    const page = await t.call('GET', `/v2/conversations/${chat.id}/messages?limit=100`);
    expect(
      page.json.items.map(
        (m: { direction: string; message_type: string }) => `${m.direction}:${m.message_type}`,
      ),
    ).to.deep.equal(['in:text', 'out:button', 'in:interactive_reply', 'out:text']);
  });

  it("when a turn says nothing, then flow finishes it: it no longer counts in its bot's backlog", async () => {
    const quiet = await createTelegramBot(t, {
      name: 'quiet',
      flow: {
        version: 1,
        start: 'listen',
        states: { listen: { wait: { store: 'x' }, next: 'listen' } },
      },
    });
    const ledger = botTurnsKey(t.prefix, quiet.appId);
    await postTelegramUpdate(t, quiet.appId, quiet.secret, telegramText(606, 1, 'hello'));
    await waitFor(
      async () =>
        (await t.schema.db('conversation_state').where({ app_id: quiet.appId })).length > 0,
      { what: 'the turn stored' },
    );
    await waitFor(async () => (await t.redis.zcard(ledger)) === 0, {
      what: 'the quiet turn gone from the ledger',
      timeoutMs: 5000,
    });
  });
});
