/**
 * The bot writes first (`POST /v2/bots/<app_id>/messages`, docs/outbound.md), end to end in one
 * process (edge, channel, language and flow against real Redis and Postgres; Telegram and WhatsApp
 * on nock): the same idempotency key sends once and answers the first result, another request
 * under it is refused, WhatsApp's 24-hour window is enforced from the user's last message, and a
 * recipient is found by conversation or by channel and chat.
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
import { waitFor } from './support/services.ts';

const FLOW = {
  version: 1,
  start: 'hello',
  states: {
    hello: {
      actions: [{ send: { text: 'Hello!' } }],
      wait: { store: 'anything' },
      next: 'hello',
    },
  },
};
const NUMBER = '1098765432';

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
    tg = await createTelegramBot(t, { name: 'Shop', flow: FLOW });
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'Shop on WhatsApp',
        flow: FLOW,
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: NUMBER, access_token: 'wa-token' },
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
  });
});
