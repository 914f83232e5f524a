/**
 * An agent's replies and typing through the real channel component: on Telegram (nock stands in
 * for the Bot API), on the web channel (the visitor's event stream) and on WhatsApp (no typing).
 */
import { expect } from 'chai';
import nock from 'nock';
import { startChannel } from '../../src/channel/worker.ts';
import { createLogger } from '../../src/shared/logger.ts';
import type { Service } from '../../src/shared/process.ts';
import { startTestApi, TELEGRAM_TOKEN, topicMessages, type TestApi } from '../support/api.ts';
import { ECHO_FLOW } from '../support/flows.ts';
import { seedHandoff } from '../support/handoffs.ts';
import { clearTopic, waitFor } from '../support/services.ts';
import { openSse } from '../support/sse.ts';
import { createWebBot, eventsUrl, startSession } from '../support/web.ts';

describe('handoffs: agent replies through channel', function () {
  this.timeout(30_000);
  let t: TestApi;
  let channel: Service;
  /** Telegram calls in the order they arrived: method and body. */
  const calls: { method: string; body: any }[] = [];

  const reply = (handoffId: string, id: string, message: Record<string, unknown>) =>
    t.call('POST', `/v2/handoffs/${handoffId}/messages`, {
      body: { client_message_id: id, message },
    });

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
    channel = await startChannel(t.config, createLogger({ component: 'channel', level: 'silent' }));
    nock(t.config.providers.telegramApiUrl)
      .persist()
      .post(/\/bot[^/]+\/(sendMessage|sendPhoto|sendChatAction)$/)
      .reply((uri, body) => {
        calls.push({ method: uri.split('/').pop()!, body });
        return [
          200,
          {
            ok: true,
            result: uri.endsWith('sendChatAction') ? true : { message_id: calls.length },
          },
        ];
      });
  });

  after(async () => {
    await channel?.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  it('when the holder shows typing and sends text, buttons and an image on Telegram, then Telegram gets sendChatAction and the messages in order, once, with transcript rows marked as theirs', async () => {
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'tg',
        flow: ECHO_FLOW,
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    const bot = { appId: created.json.app_id, channelId: created.json.channels[0].id };
    const { handoffId, conversationId, chatId } = await seedHandoff(t, bot);
    expect((await t.call('POST', `/v2/handoffs/${handoffId}/claim`)).status).to.equal(200);

    const typing = await t.call('POST', `/v2/handoffs/${handoffId}/typing`);
    expect(typing.status, typing.text).to.equal(202);
    expect(typing.json).to.deep.equal({ shown: true });
    expect((await reply(handoffId, 'a', { message_type: 'text', text: 'one' })).status).to.equal(
      202,
    );
    expect(
      (
        await reply(handoffId, 'b', {
          message_type: 'button',
          text: 'two',
          buttons: [{ id: 'yes', title: 'Yes' }],
        })
      ).status,
    ).to.equal(202);
    expect(
      (
        await reply(handoffId, 'c', {
          message_type: 'image',
          url: 'https://cdn.example.test/receipt.png',
          caption: 'three',
        })
      ).status,
    ).to.equal(202);
    // A note is written, never sent.
    expect(
      (await t.call('POST', `/v2/handoffs/${handoffId}/notes`, { body: { text: 'secret' } }))
        .status,
    ).to.equal(201);

    await waitFor(() => calls.length >= 4, { what: 'four Telegram calls' });
    // A retried POST after delivery sends nothing more.
    expect(
      (await reply(handoffId, 'a', { message_type: 'text', text: 'one' })).json.duplicate,
    ).to.equal(true);
    await waitFor(
      async () =>
        (await t.schema.db('messages').where({ conversation_id: conversationId, status: 'sent' }))
          .length === 3,
      { what: 'three sent rows' },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls.map((c) => c.method)).to.deep.equal([
      'sendChatAction',
      'sendMessage',
      'sendMessage',
      'sendPhoto',
    ]);
    expect(calls[0]!.body).to.deep.equal({ chat_id: chatId, action: 'typing' });
    expect(calls[1]!.body.text).to.equal('one');
    expect(calls[2]!.body).to.deep.include({ text: 'two' });
    expect(calls[2]!.body.reply_markup.inline_keyboard[0][0]).to.include({ text: 'Yes' });
    expect(calls[3]!.body).to.deep.include({
      photo: 'https://cdn.example.test/receipt.png',
      caption: 'three',
    });
    expect(JSON.stringify(calls)).not.to.include('secret');

    const transcript = await t.call('GET', `/v2/conversations/${conversationId}/messages`);
    const items: any[] = transcript.json.items;
    // The note was written while the replies were still on their way: in the transcript, not sent.
    expect(
      items
        .filter((m) => m.status !== 'note')
        .map((m) => [m.turn_id, m.status, m.sent_by, m.message_type]),
    ).to.deep.equal([
      [`agent:${handoffId}:a`, 'sent', 'admin-key', 'text'],
      [`agent:${handoffId}:b`, 'sent', 'admin-key', 'button'],
      [`agent:${handoffId}:c`, 'sent', 'admin-key', 'image'],
    ]);
    const notes = items.filter((m) => m.status === 'note');
    expect(notes.map((m) => [m.sent_by, m.body.text, m.platform_message_id])).to.deep.equal([
      ['admin-key', 'secret', null],
    ]);
  });

  it('when the holder shows typing and replies on the web channel, then the visitor stream gets a typing event and then the message', async () => {
    const bot = await createWebBot(t, { flow: ECHO_FLOW });
    const session = await startSession(t, bot.appId);
    const { handoffId, conversationId } = await seedHandoff(t, bot, { chatId: session.visitor_id });
    await t.call('POST', `/v2/handoffs/${handoffId}/claim`);
    const sse = await openSse(eventsUrl(t, bot.appId, session.token), '');
    try {
      expect(sse.status).to.equal(200);
      expect((await t.call('POST', `/v2/handoffs/${handoffId}/typing`)).status).to.equal(202);
      expect(
        (await reply(handoffId, 'w1', { message_type: 'text', text: 'Hi from a person' })).status,
      ).to.equal(202);
      const events = await sse.waitForEvents(2);
      expect(events.map((e) => e.event)).to.deep.equal(['typing', 'message']);
      expect(events[0]!.data).to.include({ event: 'typing', conversation_id: conversationId });
      expect(events[1]!.data).to.include({
        direction: 'out',
        turn_id: `agent:${handoffId}:w1`,
        text: 'Hi from a person',
      });
    } finally {
      sse.close();
    }
  });

  it('when the holder shows typing on WhatsApp, then 202 with shown false and nothing is published', async () => {
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'wa',
        flow: ECHO_FLOW,
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: `${Date.now()}`, access_token: 'EAAG-token' },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const bot = { appId: created.json.app_id, channelId: created.json.channels[0].id };
    const { handoffId } = await seedHandoff(t, bot);
    await t.call('POST', `/v2/handoffs/${handoffId}/claim`);
    await clearTopic(t.redis, t.prefix, 'channel');
    const typing = await t.call('POST', `/v2/handoffs/${handoffId}/typing`);
    expect(typing.status, typing.text).to.equal(202);
    expect(typing.json).to.deep.equal({ shown: false });
    expect(await topicMessages(t.redis, t.prefix, 'channel')).to.have.length(0);
  });
});
