import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { startChannel } from '../src/channel/worker.ts';
import { Producer } from '../src/shared/bus/producer.ts';
import { topicKeys } from '../src/shared/bus/topics.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { Service } from '../src/shared/process.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import {
  createTelegramBot,
  postTelegramUpdate,
  startTestApi,
  TELEGRAM_TOKEN,
  telegramChannelOut,
  topicMessages,
  whatsappPayload,
  type TestApi,
} from './support/api.ts';
import { waitFor } from './support/services.ts';

const TG = 'https://telegram.example.test';
const WA = 'https://graph.example.test';

describe('channel component', function () {
  this.timeout(30_000);
  let t: TestApi;
  let channel: Service;
  let producer: Producer;
  let tg: { appId: string; channelId: string; secret: string };
  let wa: { appId: string };
  const number = '300400500';

  const messagesIn = (topic: 'language' | 'flow') => topicMessages(t.redis, t.prefix, topic);
  const rows = () =>
    t.schema
      .db('messages')
      .orderBy('id')
      .select(
        'direction',
        'turn_id',
        'seq',
        'status',
        'platform_message_id',
        'error',
        'message_type',
      );

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
    tg = await createTelegramBot(t, { name: 'tg' });
    const w = await t.call('POST', '/v2/bots', {
      body: {
        name: 'wa',
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: number, access_token: 'wa-token' },
        },
      },
    });
    wa = { appId: w.json.app_id };
    channel = await startChannel(t.config, createLogger({ component: 'channel', level: 'silent' }));
    const schemas = new SchemaRegistry();
    producer = new Producer({
      redis: t.redis,
      schemas,
      prefix: t.prefix,
      maxLen: 10_000,
      partitions: t.config.stream.partitions,
    });
  });

  after(async () => {
    await channel?.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  afterEach(() => nock.cleanAll());

  const telegramUpdate = (update: Record<string, unknown>) =>
    postTelegramUpdate(t, tg.appId, tg.secret, update);
  /** A private chat's text message, the chat id standing for the user too. */
  const telegramText = (updateId: number, chat: number, name: string, text: string) =>
    telegramUpdate({
      update_id: updateId,
      message: {
        message_id: updateId,
        date: 1,
        chat: { id: chat, type: 'private' },
        from: { id: chat, first_name: name },
        text,
      },
    });

  it('when a Telegram text arrives, then user, conversation and message are stored and it goes to language', async () => {
    await telegramText(10, 42, 'Ana', 'hello');
    const [message] = await waitFor(async () => {
      const all = await messagesIn('language');
      return all.length === 1 ? all : undefined;
    });
    expect(message).to.deep.include({
      intent: 'language_in',
      ordering_key: `${tg.appId}:42`,
      message: { message_type: 'text', text: 'hello' },
    });
    expect(message.conversation).to.include({
      app_id: tg.appId,
      channel_type: 'telegram',
      chat_id: '42',
      user_pid: 'telegram:42',
      bot_language: 'en',
    });
    const user = await t.schema.db('users').where({ pid: 'telegram:42' }).first();
    expect(user).to.include({ first_name: 'Ana', channel_type: 'telegram', external_id: '42' });
    expect(await rows()).to.deep.equal([
      {
        direction: 'in',
        turn_id: message.turn_id,
        seq: null,
        status: 'received',
        platform_message_id: '42:10',
        error: null,
        message_type: 'text',
      },
    ]);
  });

  it('when a user sends text Postgres cannot store (U+0000, a lone surrogate), then it is mended once for the transcript and every later step', async () => {
    await telegramText(79, 79, 'Nul\u0000', 'a\u0000b \uD800 c');
    const sent = await waitFor(async () =>
      (await messagesIn('language')).find((m) => m.conversation.chat_id === '79'),
    );
    expect(sent.message).to.deep.equal({ message_type: 'text', text: 'ab \uFFFD c' });
    const stored: { body: { text: string } } = await t.schema
      .db('messages')
      .where({ direction: 'in', platform_message_id: '79:79' })
      .first('body');
    expect(stored.body.text).to.equal('ab \uFFFD c');
    const user: { first_name: string } = await t.schema
      .db('users')
      .where({ external_id: '79' })
      .first('first_name');
    expect(user.first_name).to.equal('Nul');
  });

  it('when a button is pressed, then answerCallbackQuery is called and the reply goes to flow', async () => {
    const answered = nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/answerCallbackQuery`, { callback_query_id: 'cbq-9' })
      .reply(200, { ok: true, result: true });
    await telegramUpdate({
      update_id: 2,
      callback_query: {
        id: 'cbq-9',
        from: { id: 42 },
        data: 'hours',
        message: { message_id: 11, date: 1, chat: { id: 42, type: 'private' } },
      },
    });
    const [message] = await waitFor(async () => {
      const all = await messagesIn('flow');
      return all.length === 1 ? all : undefined;
    });
    expect(message).to.deep.include({
      intent: 'user_input',
      message: { message_type: 'interactive_reply', choice_id: 'hours' },
    });
    expect(answered.isDone()).to.be.true;
  });

  const turn = (messages: unknown[], turnId = randomUUID()) =>
    telegramChannelOut(tg, 42, messages, { turnId });
  const conversationId = async (): Promise<string> => {
    const row: { id: string } = await t.schema
      .db('conversations')
      .where({ chat_id: '42' })
      .first('id');
    return row.id;
  };

  it('when a turn is sent, then sendMessage carries the buttons, and the same turn redelivered sends nothing more', async () => {
    const message = turn([
      { message_type: 'button', text: 'Pick one', buttons: [{ id: 'a', title: 'A' }] },
    ]);
    message.bot_output.conversation.conversation_id = await conversationId();
    const sent = nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`, {
        chat_id: '42',
        text: 'Pick one',
        reply_markup: { inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] },
      })
      .reply(200, { ok: true, result: { message_id: 500 } });
    await producer.publish('channel', message);
    await waitFor(async () =>
      (await rows()).some((r) => r.turn_id === message.turn_id && r.status === 'sent'),
    );
    expect(sent.isDone()).to.be.true;
    const extra = nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply(200, { ok: true, result: { message_id: 501 } });
    await producer.publish('channel', message);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(extra.isDone(), 'no second send for the same turn').to.be.false;
    const out = (await rows()).filter((r) => r.turn_id === message.turn_id);
    expect(out).to.deep.equal([
      {
        direction: 'out',
        turn_id: message.turn_id,
        seq: '0.0',
        status: 'sent',
        platform_message_id: '42:500',
        error: null,
        message_type: 'button',
      },
    ]);
  });

  it('when a reply holds text Postgres cannot store (a lone surrogate, U+0000), then it is sent once and recorded with the text mended', async () => {
    const message = turn([{ message_type: 'text', text: 'price: \uD83D and \u0000.' }]);
    message.bot_output.conversation.conversation_id = await conversationId();
    let calls = 0;
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .times(5)
      .reply(() => ((calls += 1), [200, { ok: true, result: { message_id: 800 + calls } }]));
    await producer.publish('channel', message);
    await waitFor(async () =>
      (await rows()).some((r) => r.turn_id === message.turn_id && r.status === 'sent'),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(calls, 'sent once: the row was written, so no retry sent it again').to.equal(1);
    const stored: { body: { text: string } } = await t.schema
      .db('messages')
      .where({ turn_id: message.turn_id })
      .first('body');
    expect(stored.body.text).to.equal('price: \uFFFD and .');
  });

  it('when the row of a call made cannot be written (its conversation deleted meanwhile), then the call is not made again and the turn is acknowledged', async () => {
    await telegramText(77, 77, 'Gone', 'hi');
    const conversation: { id: string } = await waitFor(() =>
      t.schema.db('conversations').where({ chat_id: '77' }).first('id'),
    );
    const message = {
      ...turn([{ message_type: 'text', text: 'bye' }]),
      ordering_key: `${tg.appId}:77`,
    };
    Object.assign(message.bot_output.conversation, {
      conversation_id: conversation.id,
      chat_id: '77',
      user_pid: 'telegram:77',
    });
    let calls = 0;
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .times(5)
      .reply(async () => {
        calls += 1;
        // The operator deletes the conversation while the platform answers: the message insert
        // then violates its foreign key, a failure that retrying cannot mend.
        await t.schema.db('conversations').where({ id: conversation.id }).del();
        return [200, { ok: true, result: { message_id: 900 + calls } }];
      });
    await producer.publish('channel', message);
    const partitions = topicKeys(t.prefix, 'channel', t.config.stream.partitions).partitions;
    const pending = async (): Promise<number> => {
      let total = 0;
      for (const stream of partitions) {
        total += Number(((await t.redis.xpending(stream, 'channel')) as [number])[0]);
      }
      return total;
    };
    await waitFor(() => calls >= 1);
    // A failed delivery is retried after CONSUMER_RETRY_BASE_MS; give a retry time to happen.
    await new Promise((resolve) => setTimeout(resolve, 2 * t.config.consumer.retryBaseMs + 1000));
    expect(calls, 'sent once: a retry would send it again').to.equal(1);
    expect(await pending(), 'the entry was acknowledged').to.equal(0);
    expect((await rows()).filter((r) => r.turn_id === message.turn_id)).to.deep.equal([]);
  });

  it('when Telegram answers 429 with retry_after, then the send waits that long and succeeds', async () => {
    const message = turn([{ message_type: 'text', text: 'slow down' }]);
    message.bot_output.conversation.conversation_id = await conversationId();
    const times: number[] = [];
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply(
        () => (
          times.push(Date.now()),
          [
            429,
            {
              ok: false,
              error_code: 429,
              description: 'Too Many Requests: retry after 1',
              parameters: { retry_after: 1 },
            },
          ]
        ),
      )
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply(() => (times.push(Date.now()), [200, { ok: true, result: { message_id: 600 } }]));
    await producer.publish('channel', message);
    await waitFor(async () =>
      (await rows()).some((r) => r.turn_id === message.turn_id && r.status === 'sent'),
    );
    expect(times).to.have.length(2);
    expect(times[1]! - times[0]!, 'waited for retry_after').to.be.at.least(950);
  });

  it('when Telegram answers 502 then 200, then the message is retried and sent once', async () => {
    const message = turn([{ message_type: 'text', text: 'flaky' }]);
    message.bot_output.conversation.conversation_id = await conversationId();
    const scope = nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply(502, 'Bad Gateway')
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply(200, { ok: true, result: { message_id: 700 } });
    await producer.publish('channel', message);
    await waitFor(async () =>
      (await rows()).some((r) => r.turn_id === message.turn_id && r.status === 'sent'),
    );
    expect(scope.isDone()).to.be.true;
  });

  it('when Telegram answers 400, then it is not retried and the reason is recorded', async () => {
    const message = turn([{ message_type: 'text', text: 'to a blocked user' }]);
    message.bot_output.conversation.conversation_id = await conversationId();
    let calls = 0;
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .times(5)
      .reply(
        () => (
          (calls += 1),
          [400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' }]
        ),
      );
    await producer.publish('channel', message);
    const row = await waitFor(async () =>
      (await rows()).find((r) => r.turn_id === message.turn_id && r.status === 'failed'),
    );
    expect(row.error).to.equal('400: Bad Request: chat not found');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).to.equal(1);
  });

  it("when replies go to a chat, then each takes one slot of the chat's pace (reserved with the breaker's admission), not two", async () => {
    await telegramText(70, 77, 'Pia', 'hi');
    const conversation = () =>
      t.schema.db('conversations').where({ chat_id: '77' }).first<{ id: string } | undefined>('id');
    await waitFor(async () => (await conversation()) !== undefined);
    const row = (await conversation())!;
    const replies = [1, 2].map(() =>
      telegramChannelOut(tg, 77, [{ message_type: 'text', text: 'hello' }], {
        conversationId: row.id,
      }),
    );
    for (const id of [700, 701]) {
      nock(TG)
        .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
        .reply(200, { ok: true, result: { message_id: id } });
    }
    for (const reply of replies) await producer.publish('channel', reply);
    await waitFor(async () => {
      const sent = (await rows()).filter((r) => replies.some((m) => m.turn_id === r.turn_id));
      return sent.length === 2 && sent.every((r) => r.status === 'sent');
    });
    // The chat's theoretical arrival time: one interval (1 s) ahead per slot taken, from the
    // first send on. Two replies that each took two slots would put it about 4 s ahead.
    const tat = Number(await t.redis.get(`${t.prefix}:pace:{tg:${tg.channelId}}:77`));
    const [seconds, micros] = await t.redis.time();
    const now = Number(seconds) * 1000 + Number(micros) / 1000;
    expect(tat - now).to.be.within(0, 2000);
  });

  it('when a WhatsApp list reply arrives and a reply is sent, then the Cloud API gets the list and the status is recorded', async () => {
    const payload = whatsappPayload(number, [{ id: 'wamid.in1', body: 'x' }]) as {
      entry: { changes: { value: { messages: Record<string, unknown>[] } }[] }[];
    };
    payload.entry[0]!.changes[0]!.value.messages[0] = {
      from: '15550002222',
      id: 'wamid.in1',
      timestamp: '1',
      type: 'interactive',
      interactive: { type: 'list_reply', list_reply: { id: 'row-2', title: 'Two' } },
    };
    await t.call('POST', '/callback', { auth: false, body: payload });
    const input = await waitFor(async () =>
      (await messagesIn('flow')).find((m) => m.conversation.app_id === wa.appId),
    );
    expect(input.message).to.deep.equal({
      message_type: 'interactive_reply',
      choice_id: 'row-2',
      title: 'Two',
    });

    const sent = nock(WA)
      .post(
        `/v21.0/${number}/messages`,
        (body: { type: string; interactive: { type: string } }) =>
          body.type === 'interactive' && body.interactive.type === 'list',
      )
      .matchHeader('authorization', 'Bearer wa-token')
      .reply(200, { messaging_product: 'whatsapp', messages: [{ id: 'wamid.out9' }] });
    await producer.publish('channel', {
      source: 'test',
      turn_id: randomUUID(),
      ordering_key: input.ordering_key,
      intent: 'channel_out',
      bot_output: {
        conversation: input.conversation,
        messages: [
          {
            message_type: 'option_list',
            text: 'Menu',
            button_text: 'Open',
            sections: [{ rows: [{ id: 'r1', title: 'One' }] }],
          },
        ],
      },
    });
    await waitFor(async () => (await rows()).some((r) => r.platform_message_id === 'wamid.out9'));
    expect(sent.isDone()).to.be.true;

    const status = whatsappPayload(number, []) as {
      entry: { changes: { value: Record<string, unknown> }[] }[];
    };
    status.entry[0]!.changes[0]!.value.statuses = [
      { id: 'wamid.out9', status: 'read', timestamp: '2', recipient_id: '15550002222' },
    ];
    await t.call('POST', '/callback', { auth: false, body: status });
    await waitFor(async () =>
      (await rows()).some((r) => r.platform_message_id === 'wamid.out9' && r.status === 'read'),
    );
    const late = whatsappPayload(number, []) as {
      entry: { changes: { value: Record<string, unknown> }[] }[];
    };
    late.entry[0]!.changes[0]!.value.statuses = [
      { id: 'wamid.out9', status: 'delivered', timestamp: '3', recipient_id: '15550002222' },
    ];
    await t.call('POST', '/callback', { auth: false, body: late });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      (await rows()).find((r) => r.platform_message_id === 'wamid.out9')?.status,
      'a late delivered does not undo read',
    ).to.equal('read');

    // The platform's reason holds text Postgres refuses: it is mended, and the status lands.
    const failed = whatsappPayload(number, []) as {
      entry: { changes: { value: Record<string, unknown> }[] }[];
    };
    failed.entry[0]!.changes[0]!.value.statuses = [
      {
        id: 'wamid.out9',
        status: 'failed',
        timestamp: '4',
        recipient_id: '15550002222',
        errors: [{ code: 131026, title: 'Undeliverable', message: 'bad\u0000 \uD800' }],
      },
    ];
    await t.call('POST', '/callback', { auth: false, body: failed });
    const [landed] = await waitFor(async () => {
      const found = (await rows()).filter(
        (r) => r.platform_message_id === 'wamid.out9' && r.status === 'failed',
      );
      return found.length === 1 ? found : undefined;
    });
    expect(landed!.error).to.equal('bad \uFFFD');
    // It counts in the bot's analytics once, by the platform's code, also when reported again.
    await t.call('POST', '/callback', { auth: false, body: failed });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const counted = await t.schema
      .db('analytics_events')
      .where({ event: 'send_failed', channel_type: 'whatsapp' })
      .select('code', 'count');
    expect(counted).to.deep.equal([{ code: '131026', count: 1 }]);
  });
});
