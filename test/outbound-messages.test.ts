/**
 * The bot writes first (`POST /v2/bots/<app_id>/messages`, docs/outbound.md), end to end in one
 * process (edge, channel, language and flow against real Redis and Postgres; Telegram and WhatsApp
 * on nock): the same idempotency key sends once and answers the first result, another request
 * under it is refused, WhatsApp's 24-hour window is enforced from the user's last message, and a
 * recipient is found by conversation or by channel and chat; WhatsApp templates are synced from the
 * Business Account (a stand-in Graph API), listed, checked, and sent outside the window, by the
 * api and by an agent.
 */
import { expect } from 'chai';
import nock from 'nock';
import {
  conversationSuite,
  createTelegramBot,
  postTelegramUpdate,
  startConversationComponents,
  telegramText,
  TELEGRAM_TOKEN,
  whatsappPayload,
  type TelegramTestBot,
  type TestApi,
} from './support/api.ts';
import { topicKeys } from '../src/shared/bus/topics.ts';
import { waitFor } from './support/services.ts';
import { seedHandoff } from './support/handoffs.ts';

const FLOW = {
  version: 1,
  start: 'hello',
  states: {
    hello: {
      actions: [{ send: { text: 'Hello!' } }],
      wait: { store: 'anything' },
      next: 'hello',
    },
    // Where a reminder's answer goes (flow_state): nothing leads here but the reminder.
    confirm: {
      wait: { store: 'answer', expect: 'text' },
      transitions: [
        { when: { '==': [{ var: 'answer' }, 'yes'] }, to: 'confirmed' },
        { to: 'hello' },
      ],
    },
    confirmed: {
      actions: [{ send: { text: 'Confirmed; you said {{anything}} before.' } }],
      end: true,
    },
  },
};
const NUMBER = '1098765432';
const WABA = '5550001';
/** The Business Account's templates, as Meta lists them over two pages. */
const TEMPLATES = [
  [
    {
      name: 'order_update',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
        { type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' },
        { type: 'FOOTER', text: 'Reply STOP to opt out' },
      ],
    },
    // What Meta would not list, and a repeat: neither is kept twice nor breaks the sync.
    { name: 'broken', status: 'APPROVED' },
    {
      name: 'order_update',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'A repeat of the first.' }],
    },
    {
      name: 'new_arrivals',
      language: 'en_US',
      status: 'APPROVED',
      category: 'MARKETING',
      components: [
        { type: 'HEADER', format: 'IMAGE' },
        { type: 'BODY', text: 'New bikes are in.' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Not now' },
            { type: 'URL', text: 'See it', url: 'https://shop.example.com/bikes/{{1}}' },
          ],
        },
      ],
    },
    {
      name: 'spring_sale',
      language: 'en_US',
      status: 'PENDING',
      category: 'MARKETING',
      components: [{ type: 'BODY', text: 'Spring sale!' }],
    },
  ],
  [
    {
      name: 'hello_again',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hello again! Reply to pick up where we left off.' }],
    },
    {
      name: 'coupon',
      language: 'en_US',
      status: 'APPROVED',
      category: 'MARKETING',
      components: [
        { type: 'BODY', text: 'Here is your code.' },
        { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'SAVE10' }] },
      ],
    },
  ],
];

describe('the bot writes first (POST /v2/bots/<app_id>/messages)', function () {
  this.timeout(60_000);
  let t: TestApi;
  let tg: TelegramTestBot;
  let wa = '';
  /** Texts Telegram was asked to send, by chat. */
  const telegram = new Map<number, string[]>();
  /** Bodies WhatsApp was asked to send. */
  const whatsapp: Record<string, any>[] = [];
  let update = 70_000;

  conversationSuite({}, async (api) => {
    t = api;
    nock(t.config.providers.telegramApiUrl)
      .persist()
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply((_uri, body) => {
        const { chat_id: chat, text } = body as { chat_id: number; text: string };
        telegram.set(Number(chat), [...(telegram.get(Number(chat)) ?? []), text]);
        return [200, { ok: true, result: { message_id: (update += 1) } }];
      });
    nock(t.config.providers.whatsappApiUrl)
      .persist()
      .post(new RegExp(`/${NUMBER}/messages$`))
      .reply((_uri, body) => {
        whatsapp.push(body as Record<string, any>);
        return [200, { messages: [{ id: `wamid.${whatsapp.length}` }] }];
      });
    const graph = new URL(t.config.providers.whatsappApiUrl);
    const listPath = `${graph.pathname.replace(/\/$/, '')}/${WABA}/message_templates`;
    nock(graph.origin)
      .persist()
      .get(listPath)
      .query(true)
      .matchHeader('authorization', 'Bearer wa-token')
      .reply((uri) => {
        const second = new URL(uri, graph.origin).searchParams.get('after') === 'page2';
        return [
          200,
          {
            data: TEMPLATES[second ? 1 : 0],
            paging: second ? {} : { next: `${graph.origin}${listPath}?limit=100&after=page2` },
          },
        ];
      });
    tg = await createTelegramBot(t, { name: 'Shop', flow: FLOW });
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'Shop on WhatsApp',
        flow: FLOW,
        channel: {
          type: 'whatsapp',
          details: {
            phone_number_id: NUMBER,
            access_token: 'wa-token',
            business_account_id: WABA,
          },
        },
      },
    });
    wa = created.json.app_id;
    return startConversationComponents(t);
  });

  const send = (appId: string, body: Record<string, unknown>) =>
    t.call('POST', `/v2/bots/${appId}/messages`, { body });
  /** A Telegram user's conversation, made by their first message. */
  async function telegramUser(chat: number): Promise<string> {
    await postTelegramUpdate(t, tg.appId, tg.secret, telegramText(chat, (update += 1), 'hi'));
    await waitFor(() => (telegram.get(chat) ?? []).includes('Hello!'), { what: 'the greeting' });
    const rows = await t.schema
      .db('conversations')
      .where({ app_id: tg.appId, chat_id: String(chat) })
      .pluck('id');
    return rows[0] as string;
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

  it('when one key is sent twice, then the user gets the message once, the second answer is the first result, and the transcript says who sent it', async () => {
    const conversation = await telegramUser(501);
    const request = {
      idempotency_key: 'order-1001-shipped',
      to: { conversation_id: conversation },
      message: { message_type: 'text', text: 'Your order 1001 has shipped.' },
    };
    const first = await send(tg.appId, request);
    expect(first.status, first.text).to.equal(202);
    expect(first.json).to.deep.include({ conversation_id: conversation, duplicate: false });
    const again = await send(tg.appId, request);
    expect(again.status).to.equal(202);
    expect(again.json).to.deep.equal({ ...first.json, duplicate: true });
    await waitFor(() => (telegram.get(501) ?? []).includes('Your order 1001 has shipped.'), {
      what: 'the notification',
    });
    await settle();
    expect(telegram.get(501)).to.deep.equal(['Hello!', 'Your order 1001 has shipped.']);

    const transcript = await t.call('GET', `/v2/conversations/${conversation}/messages`);
    const row = transcript.json.items.find(
      (m: { turn_id: string }) => m.turn_id === first.json.turn_id,
    );
    expect(row).to.deep.include({ direction: 'out', status: 'sent', sent_by: 'admin-key' });

    // The same key for another message is refused, and sends nothing.
    const other = await send(tg.appId, {
      ...request,
      message: { message_type: 'text', text: 'Something else.' },
    });
    expect([other.status, other.json.error.code]).to.deep.equal([
      409,
      'BW_ERR_IDEMPOTENCY_MISMATCH',
    ]);
    await settle();
    expect(telegram.get(501)).to.have.length(2);
  });

  it('when the recipient is named by channel and chat, then it gets the message with its buttons; an unknown chat or a bad body sends nothing', async () => {
    await telegramUser(502);
    const sent = await send(tg.appId, {
      idempotency_key: 'reminder-502',
      to: { channel_id: tg.channelId, chat_id: '502' },
      message: {
        message_type: 'button',
        text: 'Your appointment is tomorrow at 10.',
        buttons: [{ id: 'confirm', title: 'Confirm' }],
      },
    });
    expect(sent.status, sent.text).to.equal(202);
    await waitFor(() => (telegram.get(502) ?? []).includes('Your appointment is tomorrow at 10.'), {
      what: 'the reminder',
    });

    const unknown = await send(tg.appId, {
      idempotency_key: 'nobody',
      to: { channel_id: tg.channelId, chat_id: '999999' },
      message: { message_type: 'text', text: 'Hello?' },
    });
    expect([unknown.status, unknown.json.error.code]).to.deep.equal([404, 'BW_ERR_NOT_FOUND']);
    for (const body of [
      { to: { chat_id: '502' }, message: { message_type: 'text', text: 'x' } },
      {
        idempotency_key: 'k',
        to: { conversation_id: 'nope' },
        message: { message_type: 'text', text: 'x' },
      },
      {
        idempotency_key: 'k',
        to: { channel_id: tg.channelId, chat_id: '502' },
        message: { message_type: 'text' },
      },
    ]) {
      const bad = await send(tg.appId, body);
      expect([bad.status, bad.json.error.code], JSON.stringify(body)).to.deep.equal([
        400,
        'BW_ERR_SCHEMA',
      ]);
    }
    // Another bot's conversation is not this bot's recipient.
    const conversation = (await t.schema
      .db('conversations')
      .where({ app_id: tg.appId, chat_id: '502' })
      .pluck('id')) as string[];
    const elsewhere = await send(wa, {
      idempotency_key: 'cross',
      to: { conversation_id: conversation[0] },
      message: { message_type: 'text', text: 'x' },
    });
    expect(elsewhere.status).to.equal(404);
  });

  it('when a reminder names the state its answer goes to, then the user’s answer is taken there with the variables kept; a state that is not in the flow or waits for nothing is refused before any send', async () => {
    const conversation = await telegramUser(503);
    // Answered, the greeting's wait stores the text and greets again.
    await postTelegramUpdate(t, tg.appId, tg.secret, telegramText(503, (update += 1), 'Ann'));
    await waitFor(() => (telegram.get(503) ?? []).length === 2, { what: 'the second greeting' });
    const reminder = {
      idempotency_key: 'reminder-503',
      to: { conversation_id: conversation },
      message: { message_type: 'text', text: 'Your appointment is tomorrow at 10. Reply yes.' },
      flow_state: 'confirm',
    };
    const sent = await send(tg.appId, reminder);
    expect(sent.status, sent.text).to.equal(202);
    await waitFor(() => (telegram.get(503) ?? []).length === 3, { what: 'the reminder' });
    await postTelegramUpdate(t, tg.appId, tg.secret, telegramText(503, (update += 1), 'yes'));
    await waitFor(() => (telegram.get(503) ?? []).length === 4, { what: 'the answer’s reply' });
    expect(telegram.get(503)).to.deep.equal([
      'Hello!',
      'Hello!',
      'Your appointment is tomorrow at 10. Reply yes.',
      'Confirmed; you said Ann before.',
    ]);
    // The same key again publishes nothing new, the move included: the conversation stays ended.
    const again = await send(tg.appId, reminder);
    expect(again.json.duplicate).to.equal(true);
    // So it does a day later, when the publish markers have expired: the conversation is not
    // moved back to a question long answered, nor the message sent again. (Here flow still
    // remembers the move among its last 50 turns; past those, the route's check that the message
    // is in the transcript is what holds it, and this test does not reach that far.)
    const { partitions } = t.config.stream;
    for (const topic of ['flow', 'channel'] as const) {
      const keys = topicKeys(t.prefix, topic, partitions);
      for (let p = 0; p < partitions; p += 1) {
        for (const id of [sent.json.turn_id, `${sent.json.turn_id}:move`]) {
          await t.redis.del(keys.seen(p, id));
        }
      }
    }
    const dayLater = await send(tg.appId, reminder);
    expect([dayLater.status, dayLater.json.duplicate]).to.deep.equal([202, true]);
    // The same key with another state is another request.
    const moved = await send(tg.appId, { ...reminder, flow_state: 'hello' });
    expect(moved.json.error.code).to.equal('BW_ERR_IDEMPOTENCY_MISMATCH');

    for (const [state, why] of [
      ['nowhere', 'is not in the bot’s published flow'],
      ['confirmed', 'has no wait: no answer can go there'],
    ]) {
      const refused = await send(tg.appId, {
        ...reminder,
        idempotency_key: `reminder-503-${state}`,
        flow_state: state,
      });
      expect([refused.status, refused.json.error.code]).to.deep.equal([
        400,
        'BW_ERR_UNKNOWN_STATE',
      ]);
      expect(refused.json.error.details.problems).to.deep.equal([
        { path: '/flow_state', message: why },
      ]);
    }
    await settle();
    expect(telegram.get(503)).to.have.length(4);
    const row = await t.schema
      .db('conversation_state')
      .where({ conversation_id: conversation })
      .first('state');
    expect(row.state).to.deep.include({ state: 'confirmed', ended: true });

    // A repeat answers its first result whatever the flow is now. Published without the state, a
    // new request naming it is refused (to a chat that has no conversation, so that a flow not
    // yet reloaded answers 404 and sends nothing); the repeat still answers 202.
    const { hello } = FLOW.states;
    const publish = async (path: string, status: number) => {
      const answer = await t.call('POST', `/v2/bots/${tg.appId}/flow/${path}`, { body: {} });
      expect(answer.status, answer.text).to.equal(status);
    };
    const draft = await t.call('PUT', `/v2/bots/${tg.appId}/flow/draft`, {
      body: { flow: { ...FLOW, states: { hello } } },
    });
    expect(draft.status, draft.text).to.equal(200);
    await publish('publish', 201);
    const stranger = {
      ...reminder,
      idempotency_key: 'reminder-nobody',
      to: { channel_id: tg.channelId, chat_id: '999503' },
    };
    await waitFor(async () => (await send(tg.appId, stranger)).status === 400, {
      what: 'the flow without the state to be read',
    });
    const repeat = await send(tg.appId, reminder);
    expect([repeat.status, repeat.json.duplicate]).to.deep.equal([202, true]);
    await publish('versions/1/publish', 200);
    await waitFor(async () => (await send(tg.appId, stranger)).status === 404, {
      what: 'the first flow to be read again',
    });
    await settle();
    expect(telegram.get(503)).to.have.length(4);
  });

  it('when a WhatsApp user last wrote over 24 hours ago, then free text is refused with the window’s code and when it closed; within the window it is sent', async () => {
    const callback = await t.call('POST', '/callback', {
      auth: false,
      body: whatsappPayload(NUMBER, [{ id: 'wamid.in1', body: 'hi', from: '15550003333' }]),
    });
    expect(callback.status).to.equal(200);
    await waitFor(() => whatsapp.length > 0, { what: 'the greeting on WhatsApp' });
    const [conversation] = (await t.schema
      .db('conversations')
      .where({ app_id: wa, chat_id: '15550003333' })
      .pluck('id')) as string[];
    const request = {
      idempotency_key: 'wa-update',
      to: { conversation_id: conversation },
      message: { message_type: 'text', text: 'Your table is ready.' },
    };
    // The user's message, as if written 25 hours ago.
    await t.schema
      .db('messages')
      .where({ conversation_id: conversation, direction: 'in' })
      .update({ created_at: t.schema.db.raw(`now() - interval '25 hours'`) });
    const refused = await send(wa, request);
    expect([refused.status, refused.json.error.code]).to.deep.equal([422, 'BW_ERR_WINDOW_CLOSED']);
    const { last_inbound_at: last, closed_at: closed } = refused.json.error.details;
    expect(Date.parse(closed) - Date.parse(last)).to.equal(24 * 3600 * 1000);
    await settle();
    expect(whatsapp).to.have.length(1);

    // Refused, the key was not used: within the window the same request goes.
    await t.schema
      .db('messages')
      .where({ conversation_id: conversation, direction: 'in' })
      .update({ created_at: t.schema.db.raw(`now() - interval '23 hours'`) });
    const sent = await send(wa, request);
    expect([sent.status, sent.json.duplicate]).to.deep.equal([202, false]);
    await waitFor(() => whatsapp.length === 2, { what: 'the update on WhatsApp' });
    expect(whatsapp[1]).to.deep.include({ to: '15550003333', type: 'text' });
    expect(whatsapp[1]!.text.body).to.equal('Your table is ready.');

    // The window closes; the same request again answers its first result and sends nothing.
    await t.schema
      .db('messages')
      .where({ conversation_id: conversation, direction: 'in' })
      .update({ created_at: t.schema.db.raw(`now() - interval '30 hours'`) });
    const repeated = await send(wa, request);
    expect([repeated.status, repeated.json]).to.deep.equal([
      202,
      { ...sent.json, duplicate: true },
    ]);
    await settle();
    expect(whatsapp).to.have.length(2);
  });
  it('when templates are synced, then every page of the Business Account’s list is kept and listed with the parameters each takes; a bot without WhatsApp syncs nothing', async () => {
    const synced = await t.call('POST', `/v2/bots/${wa}/templates/sync`);
    expect(synced.status, synced.text).to.equal(200);
    expect(synced.json.channels).to.have.length(1);
    expect(synced.json.channels[0]).to.deep.include({ synced: true, templates: 5 });
    const listed = await t.call('GET', `/v2/bots/${wa}/templates`);
    expect(listed.json.items.map((i: any) => [i.name, i.status, i.parameters])).to.deep.equal([
      ['coupon', 'APPROVED', { header: 0, body: 0, header_media: null, buttons: 0 }],
      ['hello_again', 'APPROVED', { header: 0, body: 0, header_media: null, buttons: 0 }],
      ['new_arrivals', 'APPROVED', { header: 0, body: 0, header_media: 'image', buttons: 1 }],
      ['order_update', 'APPROVED', { header: 1, body: 2, header_media: null, buttons: 0 }],
      ['spring_sale', 'PENDING', { header: 0, body: 0, header_media: null, buttons: 0 }],
    ]);
    // Synced twice at once (a double click): the same five, not ten, and no failure.
    const twice = await Promise.all([
      t.call('POST', `/v2/bots/${wa}/templates/sync`),
      t.call('POST', `/v2/bots/${wa}/templates/sync`),
    ]);
    expect(twice.map((r) => r.status)).to.deep.equal([200, 200]);
    expect((await t.call('GET', `/v2/bots/${wa}/templates`)).json.items).to.have.length(5);
    const none = await t.call('POST', `/v2/bots/${tg.appId}/templates/sync`);
    expect(none.json).to.deep.equal({ channels: [] });
  });

  it('when a WhatsApp window is closed, then an approved template with its parameters goes and reads as the user sees it; a wrong one is refused before any send', async () => {
    const [conversation] = (await t.schema
      .db('conversations')
      .where({ app_id: wa, chat_id: '15550003333' })
      .pluck('id')) as string[];
    await t.schema
      .db('messages')
      .where({ conversation_id: conversation, direction: 'in' })
      .update({ created_at: t.schema.db.raw(`now() - interval '3 days'`) });
    const before = whatsapp.length;
    let tried = 0;
    const template = (name: string, parameters: Record<string, unknown>) => ({
      message_type: 'template',
      name,
      language: 'en_US',
      parameters,
    });
    for (const [message, details] of [
      [
        template('order_update', { header: ['1001'], body: ['Ana'] }),
        { component: 'body', expected: 2, given: 1 },
      ],
      [
        template('order_update', { body: ['Ana', '1001'] }),
        { component: 'header', expected: 1, given: 0 },
      ],
      [template('spring_sale', {}), { status: 'PENDING' }],
      [template('new_arrivals', { buttons: [{ text: 'e-42' }] }), { component: 'header_media' }],
      [
        template('new_arrivals', { header_media: { link: 'https://cdn.example.com/e42.jpg' } }),
        { component: 'buttons', expected: 1, given: 0 },
      ],
      [
        template('order_update', {
          header: ['1001'],
          body: ['Ana', '1001'],
          header_media: { link: 'https://cdn.example.com/x.jpg' },
        }),
        { component: 'header_media' },
      ],
      [template('coupon', {}), {}],
      [template('no_such', {}), {}],
    ] as const) {
      const refused = await send(wa, {
        idempotency_key: `bad-${(tried += 1)}`,
        to: { conversation_id: conversation },
        message,
      });
      expect([refused.status, refused.json.error.code], JSON.stringify(message)).to.deep.equal([
        422,
        'BW_ERR_TEMPLATE',
      ]);
      expect(refused.json.error.details).to.deep.include(details);
    }
    // A parameter WhatsApp would refuse (a new line) is refused before anything else.
    const newline = await send(wa, {
      idempotency_key: 'newline',
      to: { conversation_id: conversation },
      message: template('order_update', { header: ['1001'], body: ['Ana\nB', '1001'] }),
    });
    expect([newline.status, newline.json.error.code]).to.deep.equal([400, 'BW_ERR_SCHEMA']);
    const onTelegram = await send(tg.appId, {
      idempotency_key: 'tg-template',
      to: { channel_id: tg.channelId, chat_id: '501' },
      message: template('order_update', { header: ['1'], body: ['a', 'b'] }),
    });
    expect([onTelegram.status, onTelegram.json.error.code]).to.deep.equal([422, 'BW_ERR_TEMPLATE']);

    const sent = await send(wa, {
      idempotency_key: 'order-1001-template',
      to: { conversation_id: conversation },
      message: template('order_update', { header: ['1001'], body: ['Ana', '1001'] }),
    });
    expect(sent.status, sent.text).to.equal(202);
    await waitFor(() => whatsapp.length === before + 1, { what: 'the template on WhatsApp' });
    expect(whatsapp[before]).to.deep.include({ to: '15550003333', type: 'template' });
    expect(whatsapp[before]!.template).to.deep.equal({
      name: 'order_update',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'text', text: '1001' }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: '1001' },
          ],
        },
      ],
    });
    // Its transcript row is written once WhatsApp answered: a moment after the call.
    const row = await waitFor(
      async () =>
        (await t.call('GET', `/v2/conversations/${conversation}/messages`)).json.items.find(
          (m: { turn_id: string }) => m.turn_id === sent.json.turn_id,
        ),
      { what: 'the template’s transcript row' },
    );
    expect(row.body).to.deep.include({
      message_type: 'template',
      text: 'Hi Ana, your order 1001 has shipped.',
    });

    // An image header's link and a URL button's address end go as WhatsApp takes them.
    const withMedia = await send(wa, {
      idempotency_key: 'new-arrivals-e42',
      to: { conversation_id: conversation },
      message: template('new_arrivals', {
        header_media: { link: 'https://cdn.example.com/e42.jpg', filename: 'ignored.jpg' },
        buttons: [{ text: 'e-42' }],
      }),
    });
    expect(withMedia.status, withMedia.text).to.equal(202);
    await waitFor(() => whatsapp.length === before + 2, { what: 'the image template' });
    expect(whatsapp[before + 1]!.template.components).to.deep.equal([
      {
        type: 'header',
        parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/e42.jpg' } }],
      },
      { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'e-42' }] },
    ]);
  });

  it('when a WhatsApp number never wrote to the bot, then a template opens its conversation and goes, free text is still not found, and a number WhatsApp could not have is refused', async () => {
    const channelId = (await t.call('GET', `/v2/bots/${wa}`)).json.channels[0].id as string;
    const template = {
      message_type: 'template',
      name: 'order_update',
      language: 'en_US',
      parameters: { header: ['77'], body: ['Gil', '77'] },
    };
    const text = await send(wa, {
      idempotency_key: 'new-number-text',
      to: { channel_id: channelId, chat_id: '15550009999' },
      message: { message_type: 'text', text: 'Hello' },
    });
    expect([text.status, text.json.error.code]).to.deep.equal([404, 'BW_ERR_NOT_FOUND']);
    const badNumber = await send(wa, {
      idempotency_key: 'bad-number',
      to: { channel_id: channelId, chat_id: '+1 555 000' },
      message: template,
    });
    expect([badNumber.status, badNumber.json.error.code]).to.deep.equal([400, 'BW_ERR_SCHEMA']);
    // A wrong template opens nothing.
    const wrong = await send(wa, {
      idempotency_key: 'new-number-wrong',
      to: { channel_id: channelId, chat_id: '15550009999' },
      message: { ...template, parameters: { body: ['Gil'] } },
    });
    expect([wrong.status, wrong.json.error.code]).to.deep.equal([422, 'BW_ERR_TEMPLATE']);
    expect(
      await t.schema.db('conversations').where({ channel_id: channelId, chat_id: '15550009999' }),
    ).to.have.length(0);

    const before = whatsapp.length;
    const request = {
      idempotency_key: 'new-number',
      to: { channel_id: channelId, chat_id: '15550009999' },
      message: template,
    };
    const sent = await send(wa, request);
    expect(sent.status, sent.text).to.equal(202);
    await waitFor(() => whatsapp.length === before + 1, { what: 'the template to a new number' });
    expect(whatsapp[before]).to.deep.include({ to: '15550009999', type: 'template' });
    // The same request again: the same conversation, nothing more sent.
    const again = await send(wa, request);
    expect([again.json.duplicate, again.json.conversation_id]).to.deep.equal([
      true,
      sent.json.conversation_id,
    ]);
    // The user's answer lands in the conversation the template opened.
    const answered = await t.call('POST', '/callback', {
      auth: false,
      body: whatsappPayload(NUMBER, [{ id: 'wamid.new1', body: 'thanks', from: '15550009999' }]),
    });
    expect(answered.status).to.equal(200);
    await waitFor(
      async () =>
        (
          await t.call('GET', `/v2/conversations/${sent.json.conversation_id}/messages`)
        ).json.items.some((m: { direction: string }) => m.direction === 'in'),
      { what: 'the answer in the opened conversation' },
    );
    await settle();
    expect(whatsapp.filter((b) => b.type === 'template' && b.to === '15550009999')).to.have.length(
      1,
    );
  });

  it('when an agent holds a WhatsApp conversation whose window is closed, then free text is refused with the window’s code and a template goes', async () => {
    const channelId = (await t.call('GET', `/v2/bots/${wa}`)).json.channels[0].id as string;
    const { handoffId } = await seedHandoff(t, { appId: wa, channelId }, { chatId: '15550004444' });
    expect((await t.call('POST', `/v2/handoffs/${handoffId}/claim`)).status).to.equal(200);
    const reply = (id: string, message: Record<string, unknown>) =>
      t.call('POST', `/v2/handoffs/${handoffId}/messages`, {
        body: { client_message_id: id, message },
      });
    const free = await reply('a', { message_type: 'text', text: 'Still there?' });
    expect([free.status, free.json.error.code]).to.deep.equal([422, 'BW_ERR_WINDOW_CLOSED']);
    const before = whatsapp.length;
    const again = await reply('b', {
      message_type: 'template',
      name: 'hello_again',
      language: 'en_US',
    });
    expect(again.status, again.text).to.equal(202);
    await waitFor(() => whatsapp.length === before + 1, { what: 'the agent’s template' });
    expect(whatsapp[before]).to.deep.include({ to: '15550004444', type: 'template' });
  });
});
