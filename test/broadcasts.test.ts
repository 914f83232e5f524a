/**
 * Broadcasts (`POST /v2/bots/<app_id>/broadcasts`, docs/outbound.md), end to end in one process
 * (edge, channel, language and flow against real Redis and Postgres; Telegram and WhatsApp on
 * nock): the audience's preview counts what the broadcast then does, each recipient gets one
 * message filled from their own values, opted-out users (a stop word, a Telegram block) and users
 * whose WhatsApp window closed are skipped, a template goes with its parameters from a CSV (to
 * numbers that never wrote too), a number's daily messaging limit spreads a broadcast, and
 * the operator's moves are refused where the status does not allow them.
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
  type TelegramTestBot,
  type TestApi,
} from './support/api.ts';
import { waitFor } from './support/services.ts';
import { seedAudience, type AudienceSeed } from './support/broadcast-audience.ts';
import { pruneBroadcasts } from '../src/api/broadcasts/store.ts';
import { MessagingLimit } from '../src/shared/whatsapp-messaging-limit.ts';
import { BROADCAST_QUEUE, broadcastJobsPrefix } from '../src/shared/broadcasts/queue.ts';
import { jobsConnection } from '../src/shared/jobs-connection.ts';
import { Queue } from 'bullmq';

const FLOW = {
  version: 1,
  start: 'hello',
  states: {
    hello: {
      actions: [{ send: { text: 'Hello!' } }],
      wait: { store: 'anything' },
      next: 'hello',
    },
    // Where a survey broadcast's answers go (flow_state).
    rate: { wait: { store: 'rating', expect: 'number' }, next: 'thanks' },
    thanks: {
      actions: [{ send: { text: 'Thanks {{name}}, you gave us {{rating}}.' } }],
      end: true,
    },
  },
};
const NUMBER = '1098765433';
const WABA = '5550002';
const TEMPLATE = {
  name: 'order_update',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' }],
};
/** A Telegram chat that blocked the bot: its sends are refused with 403. */
const BLOCKED = 900_003;
/** A Telegram chat whose first send Telegram refuses with 429 (retry after 1 s). */
const LIMITED = 900_201;

describe('broadcasts (POST /v2/bots/<app_id>/broadcasts)', function () {
  this.timeout(60_000);
  let t: TestApi;
  let tg: TelegramTestBot;
  let wa = { appId: '', channelId: '' };
  /** Texts Telegram was asked to send, by chat. */
  const telegram = new Map<string, string[]>();
  /** Bodies WhatsApp was asked to send. */
  const whatsapp: Record<string, any>[] = [];
  let update = 90_000;
  let limited = false;

  conversationSuite({ BROADCAST_LOCK_MS: '2000' }, async (api) => {
    t = api;
    nock(t.config.providers.telegramApiUrl)
      .persist()
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply((_uri, body) => {
        const { chat_id: chat, text } = body as { chat_id: number; text: string };
        if (Number(chat) === LIMITED && !limited) {
          limited = true;
          return [
            429,
            {
              ok: false,
              error_code: 429,
              description: 'Too Many Requests',
              parameters: { retry_after: 1 },
            },
          ];
        }
        if (Number(chat) === BLOCKED)
          return [
            403,
            { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
          ];
        telegram.set(String(chat), [...(telegram.get(String(chat)) ?? []), text]);
        return [200, { ok: true, result: { message_id: (update += 1) } }];
      });
    nock(t.config.providers.whatsappApiUrl)
      .persist()
      .post(new RegExp(`/${NUMBER}/messages$`))
      .reply((_uri, body) => {
        whatsapp.push(body as Record<string, any>);
        return [200, { messages: [{ id: `wamid.b${whatsapp.length}` }] }];
      });
    const graph = new URL(t.config.providers.whatsappApiUrl);
    nock(graph.origin)
      .persist()
      .get(`${graph.pathname.replace(/\/$/, '')}/${WABA}/message_templates`)
      .query(true)
      .reply(200, { data: [TEMPLATE], paging: {} });
    tg = await createTelegramBot(t, { name: 'Shop', flow: FLOW });
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'Shop on WhatsApp',
        flow: FLOW,
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: NUMBER, access_token: 'wa-token', business_account_id: WABA },
        },
      },
    });
    wa = { appId: created.json.app_id, channelId: created.json.channels[0].id };
    return startConversationComponents(t);
  });

  /** Users of the Telegram bot, made in Postgres: chats `first` to `first + count - 1`. */
  const telegramUsers = (first: number, count: number, vars?: AudienceSeed['vars']) =>
    seedAudience(t.schema.db, {
      appId: tg.appId,
      channelId: tg.channelId,
      channelType: 'telegram',
      first,
      count,
      ...(vars ? { vars } : {}),
    });
  const broadcast = (appId: string, body: Record<string, unknown>) =>
    t.call('POST', `/v2/bots/${appId}/broadcasts`, { body });
  const finished = async (id: string) => {
    await waitFor(
      async () => {
        const got = await t.call('GET', `/v2/broadcasts/${id}`);
        return got.json.status === 'finished' ? got.json : undefined;
      },
      { timeoutMs: 30_000, what: 'the broadcast finished' },
    );
    return (await t.call('GET', `/v2/broadcasts/${id}`)).json;
  };

  it('when a Telegram broadcast goes to every user, then the preview counts what it does: each user gets one message with their own values, and the opted out, the blocked and those without the value do not', async () => {
    // Users who wrote: four with a name, one without, one who blocked the bot.
    const chats = await telegramUsers(900_000, 5, (i) => (i === 4 ? {} : { name: `Ana ${i}` }));
    // One more says a stop word through the pipeline: opted out.
    await postTelegramUpdate(t, tg.appId, tg.secret, telegramText(900_100, (update += 1), 'hi'));
    await waitFor(() => telegram.get('900100')?.includes('Hello!'), { what: 'the greeting' });
    await postTelegramUpdate(
      t,
      tg.appId,
      tg.secret,
      telegramText(900_100, (update += 1), ' STOP '),
    );
    await waitFor(
      async () =>
        (await t.schema.db('conversations').where({ chat_id: '900100' }).first('opted_out_at'))
          ?.opted_out_at ?? undefined,
      { what: 'the stop word recorded' },
    );
    const request = {
      name: 'Spring news',
      channel_id: tg.channelId,
      audience: { kind: 'all' },
      message: { message_type: 'text', text: 'Hi {{name}}, spring bikes are in.' },
    };
    const preview = await broadcast(tg.appId, { ...request, dry_run: true });
    expect(preview.status, preview.text).to.equal(200);
    // 900003 (index 3) blocks the bot only when sent to: queued here.
    expect(preview.json).to.deep.equal({
      dry_run: true,
      total: 6,
      will_send: 4,
      skipped: { missing_value: 1, opted_out: 1 },
    });
    // A dry run makes nothing.
    expect(await t.schema.db('broadcasts').where({ app_id: tg.appId }).count()).to.deep.equal([
      { count: '0' },
    ]);

    const made = await broadcast(tg.appId, request);
    expect(made.status, made.text).to.equal(201);
    const done = await finished(made.json.id);
    expect(done.counts).to.deep.include({
      total: 6,
      queued: 0,
      sending: 0,
      sent: 3,
      failed: 1,
      skipped: 2,
      unknown: 0,
      skipped_by_reason: { missing_value: 1, opted_out: 1 },
    });
    expect(Object.keys(done.counts.failed_by_reason)).to.have.length(1);
    for (const [i, chat] of chats.slice(0, 3).entries())
      expect(telegram.get(chat)).to.deep.equal([`Hi Ana ${i}, spring bikes are in.`]);
    expect(telegram.get(chats[4]!)).to.equal(undefined);
    expect(telegram.get('900100')).to.deep.equal(['Hello!', 'Hello!']);

    // The user who blocked the bot is opted out from now on; the operator clears it.
    const blocked = await t.schema
      .db('conversations')
      .where({ chat_id: String(BLOCKED) })
      .first();
    const shown = await t.call('GET', `/v2/conversations/${blocked.id}`);
    expect(shown.json.opted_out_at).to.be.a('string');
    const cleared = await t.call('DELETE', `/v2/conversations/${blocked.id}/opt-out`);
    expect(cleared.status, cleared.text).to.equal(204);
    expect((await t.call('GET', `/v2/conversations/${blocked.id}`)).json.opted_out_at).to.equal(
      null,
    );

    // Every recipient's outcome, as CSV.
    const csv = await t.call('GET', `/v2/broadcasts/${made.json.id}/recipients`);
    expect(csv.status).to.equal(200);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).to.equal(
      'seq,chat_id,conversation_id,state,reason,platform_message_id,delivery,updated_at',
    );
    const states = lines.slice(1).map((l) => l.split(',')[3]);
    expect(states.sort()).to.deep.equal(['failed', 'sent', 'sent', 'sent', 'skipped', 'skipped']);

    // A finished broadcast cannot be paused, resumed or cancelled.
    for (const move of ['pause', 'resume', 'cancel']) {
      const refused = await t.call('POST', `/v2/broadcasts/${made.json.id}/${move}`);
      expect([refused.status, refused.json.error.code]).to.deep.equal([
        409,
        'BW_ERR_BROADCAST_STATE',
      ]);
    }
  });

  it('when Telegram answers 429 to a recipient, then the broadcast waits, sends it again, and finishes with each user’s message once', async () => {
    const chats = await telegramUsers(LIMITED - 1, 2);
    const made = await broadcast(tg.appId, {
      name: 'Rate limited',
      channel_id: tg.channelId,
      audience: { kind: 'csv', csv: ['chat_id', ...chats].join('\n') },
      message: { message_type: 'text', text: 'Second wave.' },
    });
    expect(made.status, made.text).to.equal(201);
    const done = await finished(made.json.id);
    expect(done.counts).to.deep.include({ total: 2, sent: 2, failed: 0, unknown: 0 });
    expect(limited).to.equal(true);
    for (const chat of chats) expect(telegram.get(chat)).to.deep.equal(['Second wave.']);
  });

  it('when a broadcast names the state its answers go to, then each recipient’s answer is taken there with their variables; a state that waits for nothing is refused', async () => {
    const chats = await telegramUsers(900_400, 2, (i) => ({ name: ['Ana', 'Ben'][i] }));
    const body = {
      name: 'Ride survey',
      channel_id: tg.channelId,
      audience: { kind: 'csv', csv: ['chat_id', ...chats].join('\n') },
      message: { message_type: 'text', text: 'How was your ride, {{name}}? Send 1 to 5.' },
      flow_state: 'rate',
    };
    const refused = await broadcast(tg.appId, { ...body, flow_state: 'thanks' });
    expect([refused.status, refused.json.error.code]).to.deep.equal([400, 'BW_ERR_UNKNOWN_STATE']);
    const made = await broadcast(tg.appId, body);
    expect(made.status, made.text).to.equal(201);
    expect(made.json.flow_state).to.equal('rate');
    const done = await finished(made.json.id);
    expect(done.counts).to.deep.include({ total: 2, sent: 2 });
    const [ana, ben] = chats as [string, string];
    await postTelegramUpdate(t, tg.appId, tg.secret, telegramText(Number(ana), (update += 1), '5'));
    await waitFor(() => telegram.get(ana)?.length === 2, { what: 'Ana’s thanks' });
    expect(telegram.get(ana)).to.deep.equal([
      'How was your ride, Ana? Send 1 to 5.',
      'Thanks Ana, you gave us 5.',
    ]);
    // An answer the state's wait does not take is asked again, there.
    await postTelegramUpdate(
      t,
      tg.appId,
      tg.secret,
      telegramText(Number(ben), (update += 1), 'meh'),
    );
    await waitFor(() => telegram.get(ben)?.length === 2, { what: 'Ben asked again' });
    expect(telegram.get(ben)![1]).to.not.equal('Hello!');
    expect(telegram.get(ben)![1]).to.match(/number/i);
  });

  it('when a user’s filled text is longer than one Telegram message, then it goes as two messages, once', async () => {
    const [chat] = await telegramUsers(900_300, 1, () => ({ note: 'x'.repeat(4000) }));
    const made = await broadcast(tg.appId, {
      name: 'Long',
      channel_id: tg.channelId,
      audience: { kind: 'csv', csv: `chat_id\n${chat}` },
      message: { message_type: 'text', text: `Your notes: {{note}} ${'and more '.repeat(20)}` },
    });
    expect(made.status, made.text).to.equal(201);
    const done = await finished(made.json.id);
    expect(done.counts).to.deep.include({ total: 1, sent: 1, queued: 0 });
    expect(telegram.get(chat!)).to.have.length(2);
  });

  it('when a WhatsApp broadcast is free text, then users whose window closed are skipped; a template goes to them with its parameters from a CSV', async () => {
    const open = await seedAudience(t.schema.db, {
      ...wa,
      channelType: 'whatsapp',
      first: 447_700_000,
      count: 2,
    });
    const closed = await seedAudience(t.schema.db, {
      ...wa,
      channelType: 'whatsapp',
      first: 447_800_000,
      count: 3,
      lastInboundAgoMs: 2 * 24 * 3600 * 1000,
    });
    const free = await broadcast(wa.appId, {
      name: 'Free text',
      channel_id: wa.channelId,
      audience: { kind: 'all' },
      message: { message_type: 'text', text: 'Shop opens at 9 tomorrow.' },
    });
    expect(free.status, free.text).to.equal(201);
    const freeDone = await finished(free.json.id);
    expect(freeDone.counts).to.deep.include({
      sent: 2,
      skipped: 3,
      skipped_by_reason: { window_closed: 3 },
    });
    expect(whatsapp.map((b) => b.to).sort()).to.deep.equal(open);

    const synced = await t.call('POST', `/v2/bots/${wa.appId}/templates/sync`);
    expect(synced.status, synced.text).to.equal(200);
    const template = {
      message_type: 'template',
      name: 'order_update',
      language: 'en_US',
      parameters: { body: ['{{name}}', '{{order}}'] },
    };
    // A template missing a parameter is refused before anything is made.
    const short = await broadcast(wa.appId, {
      name: 'Orders',
      channel_id: wa.channelId,
      audience: { kind: 'all' },
      message: { ...template, parameters: { body: ['{{name}}'] } },
    });
    expect([short.status, short.json.error.code]).to.deep.equal([422, 'BW_ERR_TEMPLATE']);

    const csv = [
      'chat_id,name,order',
      `${closed[0]},Ana,1001`,
      `${closed[1]},"Bo, Jr",1002`,
      `${closed[2]},Cy,`,
      `${closed[0]},Ana again,1003`,
      // Numbers that never wrote: a template opens their conversations, written as people do.
      '447799999999,Nobody,1004',
      '+44 7799 888888,Dee,1005',
      'not-a-number,Eve,1006',
    ].join('\n');
    whatsapp.length = 0;
    const orders = await broadcast(wa.appId, {
      name: 'Orders',
      channel_id: wa.channelId,
      audience: { kind: 'csv', csv },
      message: template,
    });
    expect(orders.status, orders.text).to.equal(201);
    expect(orders.json.audience).to.deep.equal({ kind: 'csv', rows: 7 });
    const done = await finished(orders.json.id);
    expect(done.counts).to.deep.include({
      total: 7,
      sent: 4,
      skipped: 3,
      skipped_by_reason: { missing_value: 1, duplicate: 1, no_conversation: 1 },
    });
    const bodies = whatsapp.map((b) => [
      b.to,
      b.template.components[0].parameters.map((p: { text: string }) => p.text),
    ]);
    expect(bodies).to.have.deep.members([
      [closed[0], ['Ana', '1001']],
      [closed[1], ['Bo, Jr', '1002']],
      ['447799999999', ['Nobody', '1004']],
      ['447799888888', ['Dee', '1005']],
    ]);
    // The transcript keeps the body as the user read it.
    const row = await t.schema
      .db('messages as m')
      .join('conversations as c', 'c.id', 'm.conversation_id')
      .where({ 'c.chat_id': closed[1], 'm.direction': 'out' })
      .first('m.body', 'm.sent_by');
    expect(row.body.text).to.equal('Hi Bo, Jr, your order 1002 has shipped.');
    expect(row.sent_by).to.equal('admin-key');
  });

  it('when a WhatsApp template broadcast starts more conversations than the number’s messaging limit has room for, then the preview says it takes two days, it sends what fits and waits, a one-off template is refused, and with room again it goes on', async () => {
    const limit = new MessagingLimit(t.redis, t.config.stream.prefix);
    // The number (limit 250, the default) started conversations with 247 users today.
    const { used } = await limit.usage(NUMBER, 250);
    const fillers = Array.from({ length: 247 - used }, (_, i) => `filler-${i}`);
    for (const user of fillers) expect((await limit.take(NUMBER, user, 250)).waitMs).to.equal(0);
    const users = await seedAudience(t.schema.db, {
      ...wa,
      channelType: 'whatsapp',
      first: 447_600_000,
      count: 6,
      lastInboundAgoMs: 3 * 24 * 3600 * 1000,
    });
    const synced = await t.call('POST', `/v2/bots/${wa.appId}/templates/sync`);
    expect(synced.status, synced.text).to.equal(200);
    const body = {
      name: 'Reminders',
      channel_id: wa.channelId,
      audience: {
        kind: 'csv',
        csv: ['chat_id,name,order', ...users.slice(0, 5).map((u, i) => `${u},U${i},${i}`)].join(
          '\n',
        ),
      },
      message: {
        message_type: 'template',
        name: 'order_update',
        language: 'en_US',
        parameters: { body: ['{{name}}', '{{order}}'] },
      },
      start_at: new Date(Date.now() + 1000).toISOString(),
    };
    const preview = await broadcast(wa.appId, { ...body, dry_run: true });
    expect(preview.status, preview.text).to.equal(200);
    const plan = preview.json.messaging_limit;
    expect([plan.limit, plan.used, plan.starting]).to.deep.equal([250, 247, 5]);
    expect(plan.days.map((d: { users: number }) => d.users)).to.deep.equal([3, 2]);
    expect(Date.parse(plan.days[1].from) - Date.parse(plan.days[0].from)).to.equal(
      24 * 3600 * 1000,
    );

    whatsapp.length = 0;
    const made = await broadcast(wa.appId, body);
    expect(made.status, made.text).to.equal(201);
    expect(made.json.messaging_limit.days).to.have.length(2);
    const waiting = await waitFor(
      async () => {
        const got = (await t.call('GET', `/v2/broadcasts/${made.json.id}`)).json;
        return got.waiting_until ? got : undefined;
      },
      { timeoutMs: 30_000, what: 'the broadcast waits for the messaging limit' },
    );
    expect(waiting.status).to.equal('running');
    expect(waiting.counts).to.deep.include({ sent: 3, queued: 2 });
    // Until the oldest of the 250 leaves the 24 hours.
    expect(Date.parse(waiting.waiting_until) - Date.now()).to.be.above(23 * 3600 * 1000);
    expect(whatsapp).to.have.length(3);

    // A one-off template to a sixth user whose window closed: no room either.
    const conversation = await t.schema
      .db('conversations')
      .where({ channel_id: wa.channelId, chat_id: users[5] })
      .first('id');
    const oneOff = {
      idempotency_key: 'limit-one-off',
      to: { conversation_id: conversation.id },
      message: { ...body.message, parameters: { body: ['Fay', '9'] } },
    };
    const refused = await t.call('POST', `/v2/bots/${wa.appId}/messages`, { body: oneOff });
    expect([refused.status, refused.json.error.code]).to.deep.equal([
      429,
      'BW_ERR_MESSAGING_LIMIT',
    ]);
    expect(refused.json.error.details.limit).to.equal(250);

    // Paused and resumed while it waits: the new start's run finds no room either and waits.
    // The first start's job, delayed until the same time, then fires (promoted here): it finds
    // the broadcast is another start's, and takes nothing.
    const move = (to: string) => t.call('POST', `/v2/broadcasts/${made.json.id}/${to}`);
    expect((await move('pause')).status).to.equal(200);
    expect((await move('resume')).status).to.equal(200);
    const rewaiting = await waitFor(
      async () => {
        const got = (await t.call('GET', `/v2/broadcasts/${made.json.id}`)).json;
        return got.waiting_until ? got : undefined;
      },
      { timeoutMs: 30_000, what: 'the resumed broadcast waits again' },
    );
    const runOf = async () =>
      (await t.schema.db('broadcasts').where('id', made.json.id).first('run_id')).run_id as string;
    const resumedRun = await runOf();
    const connection = jobsConnection(t.config.redisUrl, undefined, 'test-broadcast-jobs');
    const jobs = new Queue(BROADCAST_QUEUE, {
      connection: connection.connection,
      prefix: broadcastJobsPrefix(t.config.stream.prefix),
    });
    try {
      const first = await jobs.getJob(`${made.json.id}-first`);
      expect(await first!.getState()).to.equal('delayed');
      await first!.promote();
      await waitFor(async () => (await jobs.getJob(`${made.json.id}-first`)) === undefined, {
        what: 'the first start’s job ended',
      });
    } finally {
      await jobs.close();
      await connection.close();
    }
    expect(await runOf()).to.equal(resumedRun);
    const after = (await t.call('GET', `/v2/broadcasts/${made.json.id}`)).json;
    expect([after.waiting_until, after.counts.sent]).to.deep.equal([rewaiting.waiting_until, 3]);

    // Room again (users left the 24 hours): resumed, the broadcast sends the other two.
    await t.redis.zrem(
      `${t.config.stream.prefix}:wa-started:{wa:${NUMBER}}`,
      ...fillers.slice(0, 3),
    );
    expect((await t.call('POST', `/v2/broadcasts/${made.json.id}/pause`)).status).to.equal(200);
    expect((await t.call('POST', `/v2/broadcasts/${made.json.id}/resume`)).status).to.equal(200);
    const done = await finished(made.json.id);
    expect(done.counts).to.deep.include({ sent: 5, queued: 0 });
    expect(done.waiting_until).to.equal(null);
    expect(whatsapp.map((b) => b.to).sort()).to.deep.equal(users.slice(0, 5));
    const accepted = await t.call('POST', `/v2/bots/${wa.appId}/messages`, { body: oneOff });
    expect(accepted.status, accepted.text).to.equal(202);
  });

  it('when a broadcast ended longer ago than its retention, then it is deleted with its recipients, the transcripts keep its messages, and newer ones stay', async () => {
    const chats = await telegramUsers(900_500, 3);
    const made = [];
    for (const name of ['Old news', 'New news']) {
      const one = await broadcast(tg.appId, {
        name,
        channel_id: tg.channelId,
        audience: { kind: 'csv', csv: ['chat_id', ...chats].join('\n') },
        message: { message_type: 'text', text: name },
      });
      expect(one.status, one.text).to.equal(201);
      await finished(one.json.id);
      made.push(one.json.id as string);
    }
    const [old, recent] = made as [string, string];
    const db = t.schema.db;
    await db('broadcasts')
      .where({ id: old })
      .update({ ended_at: db.raw(`now() - interval '181 days'`) });
    // Batches of one: every row of the old one goes, however many batches it takes.
    expect(await pruneBroadcasts(db, 180, 1)).to.equal(4);
    expect(await pruneBroadcasts(db, 180)).to.equal(0);
    expect((await t.call('GET', `/v2/broadcasts/${old}`)).status).to.equal(404);
    expect((await t.call('GET', `/v2/broadcasts/${recent}`)).json.counts).to.deep.include({
      total: 3,
      sent: 3,
    });
    const kept = await db('messages').where({ turn_id: db.raw(`'bc:' || ?::text || ':1'`, [old]) });
    expect(kept).to.have.length(1);
  });

  it('when a broadcast is scheduled later, then it waits; paused it stays so, cancelled its recipients are skipped and nothing is sent', async () => {
    await seedAudience(t.schema.db, {
      ...wa,
      channelType: 'whatsapp',
      first: 447_900_000,
      count: 3,
    });
    whatsapp.length = 0;
    const later = await broadcast(wa.appId, {
      name: 'Later',
      channel_id: wa.channelId,
      audience: { kind: 'filter', active_since: new Date(Date.now() - 7_200_000).toISOString() },
      message: { message_type: 'text', text: 'See you tomorrow.' },
      start_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(later.status, later.text).to.equal(201);
    expect(later.json.status).to.equal('scheduled');
    const paused = await t.call('POST', `/v2/broadcasts/${later.json.id}/pause`);
    expect(paused.json.status).to.equal('paused');
    const cancelled = await t.call('POST', `/v2/broadcasts/${later.json.id}/cancel`);
    expect(cancelled.status, cancelled.text).to.equal(200);
    expect(cancelled.json.status).to.equal('cancelled');
    expect(cancelled.json.counts.skipped_by_reason.cancelled).to.be.greaterThan(0);
    expect(cancelled.json.counts.queued).to.equal(0);
    const listed = await t.call('GET', `/v2/bots/${wa.appId}/broadcasts`);
    expect(listed.json.items[0].id).to.equal(later.json.id);
    // The list counts every broadcast in one go, each as its own read does.
    expect(listed.json.items.length).to.be.above(2);
    for (const item of listed.json.items as { id: string; counts: unknown }[]) {
      const one = await t.call('GET', `/v2/broadcasts/${item.id}`);
      expect(item.counts).to.deep.equal(one.json.counts);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(whatsapp).to.have.length(0);
  });
});
