/**
 * A bot's analytics end to end in one process (edge, channel, language and flow against real
 * Redis and Postgres, Telegram on nock): scripted conversations with known drop-offs, re-asks, a
 * fallback and a handoff give exactly the expected figures; every webhook delivered twice and
 * every turn delivered again to flow afterwards (as after a crash before its ack) changes none of
 * them; the console's test chats are never counted; CSV has the same figures; the bot's response
 * times, an agent's first reply, how the handoff ended and a refused reply are counted once.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
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
import { pruneAnalytics } from '../src/api/analytics/store.ts';
import {
  EXPECTED_STATES,
  EXPECTED_TOTALS,
  FLOW,
  SCRIPTS,
  USERS,
} from './support/analytics-scripts.ts';
import { DAY_MS, dayOf } from '../src/shared/utc-day.ts';

describe('analytics (edge, channel, language, flow)', function () {
  this.timeout(120_000);
  let t: TestApi;
  let bot: TelegramTestBot;
  /** The bot's texts, by Telegram chat. */
  const sent = new Map<number, string[]>();
  let update = 90_000;
  /** A user who blocked the bot: Telegram refuses every reply to this chat. */
  const BLOCKED_CHAT = 4_242;
  let refused = 0;
  const today = dayOf();

  conversationSuite({}, async (api) => {
    t = api;
    nock('https://telegram.example.test')
      .persist()
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .reply((_uri, body) => {
        const { chat_id: chat, text } = body as { chat_id: number; text: string };
        if (Number(chat) === BLOCKED_CHAT) {
          refused += 1;
          return [
            403,
            { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
          ];
        }
        sent.set(Number(chat), [...(sent.get(Number(chat)) ?? []), text]);
        return [200, { ok: true, result: { message_id: update } }];
      });
    bot = await createTelegramBot(t, { name: 'Analytics bot', flow: FLOW });
    return startConversationComponents(t);
  });

  const analytics = async (query = '') =>
    (await t.call('GET', `/v2/bots/${bot.appId}/analytics?from=${today}&to=${today}${query}`)).json;

  /** One user's script: each message posted twice (a platform's redelivery), each reply awaited. */
  async function play(chat: number, script: [string, string][]): Promise<void> {
    for (const [text, reply] of script) {
      const before = sent.get(chat)?.length ?? 0;
      const body = telegramText(chat, (update += 1), text);
      for (let delivery = 1; delivery <= 2; delivery += 1) {
        const answer = await postTelegramUpdate(t, bot.appId, bot.secret, body);
        expect(answer.status, `delivery ${delivery}`).to.equal(200);
      }
      await waitFor(() => (sent.get(chat) ?? []).slice(before).includes(reply), {
        timeoutMs: 30_000,
        what: `"${reply}" after "${text}" from chat ${chat}`,
      });
    }
  }

  /**
   * Every turn flow ever read, delivered again (a consumer that died before its acks): flow finds
   * each applied, republishes at most its outbox, and counts nothing more.
   */
  async function deliverAgain(atLeast: number): Promise<void> {
    const streams = (await t.redis.keys(`${t.prefix}:{flow:p*}`)).filter((k) => k.endsWith('}'));
    let again = 0;
    for (const stream of streams) {
      const entries = (await t.redis.xrange(stream, '-', '+')) as [string, string[]][];
      for (const [, fields] of entries) {
        await t.redis.xadd(stream, '*', ...fields);
        again += 1;
      }
    }
    expect(again).to.be.at.least(atLeast);
    // Settled when flow and channel (the outboxes flow republished) have nothing left.
    const settled = [
      ...streams,
      ...(await t.redis.keys(`${t.prefix}:{channel:p*}`)).filter((k) => k.endsWith('}')),
    ];
    await waitFor(
      async () => {
        for (const stream of settled) {
          const groups = (await t.redis.xinfo('GROUPS', stream)) as unknown[][];
          for (const group of groups) {
            const info = Object.fromEntries(
              Array.from({ length: group.length / 2 }, (_, i) => [group[2 * i], group[2 * i + 1]]),
            );
            if (Number(info.pending) > 0 || Number(info.lag) > 0) return false;
          }
        }
        return true;
      },
      { timeoutMs: 30_000, what: 'the turns delivered again handled' },
    );
  }

  it('when scripted users go through a flow, then every figure is exactly what they did, also after every turn is delivered to flow again', async () => {
    let chat = 5_000;
    const plays: Promise<void>[] = [];
    for (const [script, users] of USERS) {
      for (let i = 0; i < users; i += 1) plays.push(play((chat += 1), SCRIPTS[script]!));
    }
    await Promise.all(plays);

    const expectFigures = async () => {
      const figures = await analytics();
      expect(figures.totals).to.deep.equal(EXPECTED_TOTALS);
      expect(figures.states).to.deep.equal(EXPECTED_STATES);
      expect(figures.rates).to.deep.equal({
        completion: 0.5,
        did_not_understand: Math.round((4 / 23) * 10_000) / 10_000,
        handoff: 0.1,
      });
      expect(figures.by_day).to.have.length(1);
      expect(figures.by_channel.map((c: { channel_type: string }) => c.channel_type)).to.deep.equal(
        ['telegram'],
      );
      expect(figures.by_version).to.have.length(1);
      return figures;
    };
    await waitFor(
      async () => (await analytics()).totals.messages_in === EXPECTED_TOTALS.messages_in,
      {
        timeoutMs: 10_000,
        what: 'every turn counted',
      },
    );
    const figures = await expectFigures();
    expect(figures.by_version[0].flow_version).to.equal(1);

    await deliverAgain(EXPECTED_TOTALS.messages_in);
    await expectFigures();
  });

  it('when the console tries the bot in a test chat, then nothing of it is counted', async () => {
    const before = await analytics();
    const started = await t.call('POST', `/v2/bots/${bot.appId}/test-chats`, {
      body: { version: 'current' },
    });
    expect(started.status).to.equal(201);
    const chat = started.json.chat_id as string;
    const said = await t.call('POST', `/v2/bots/${bot.appId}/test-chats/${chat}/messages`, {
      body: { client_message_id: randomUUID(), text: 'hi' },
    });
    expect(said.status).to.be.oneOf([200, 202]);
    // The test chat's turn is stored like any other; the figures stay.
    await waitFor(
      async () =>
        (
          await t.schema.db.raw(
            `select count(*)::int as n from conversation_state s join conversations c on c.id = s.conversation_id
             join channels ch on ch.id = c.channel_id where ch.type = 'console' and s.app_id = ?`,
            [bot.appId],
          )
        ).rows[0].n === 1,
      { timeoutMs: 20_000, what: 'the test chat’s turn stored' },
    );
    expect(await analytics()).to.deep.equal(before);
  });

  it('when figures are asked as CSV, per day or per state, then they are the JSON’s, one row per day, channel, language and version', async () => {
    const days = await t.call(
      'GET',
      `/v2/bots/${bot.appId}/analytics?from=${today}&to=${today}&format=csv`,
    );
    expect(days.status).to.equal(200);
    expect(days.headers['content-type']).to.match(/^text\/csv/);
    const [header, ...rows] = days.text.trim().split('\n');
    expect(header).to.equal(
      'day,channel_type,language,flow_version,conversations,new_users,active_users,messages_in,messages_out,completed,reasks,fallbacks,handoffs,unanswered',
    );
    // A row per language the turns ran in (a first "hi" may have none yet): they add up to the
    // totals.
    const sums = Array<number>(10).fill(0);
    for (const row of rows) {
      const cells = row.split(',');
      expect(cells.slice(0, 4)).to.deep.include.members([today, 'telegram', '1']);
      cells.slice(4).forEach((cell, i) => (sums[i]! += Number(cell)));
    }
    const counters = Object.entries(EXPECTED_TOTALS).filter(
      ([name]) => name !== 'users' && name !== 'returning_users',
    );
    expect(sums).to.deep.equal(counters.map(([, n]) => n));
    const states = await t.call(
      'GET',
      `/v2/bots/${bot.appId}/analytics?from=${today}&to=${today}&format=csv&rows=states`,
    );
    expect(states.text.trim().split('\n')).to.deep.equal([
      'state,entered,left_forward,ended,handoffs,reasks,fallbacks,abandoned',
      'book,4,2,0,0,2,0,2',
      'booked,2,0,2,0,0,0,0',
      'hours,3,0,3,0,0,0,0',
      'human,1,0,0,1,0,0,0',
      'welcome,10,8,0,0,1,1,2',
    ]);
  });

  it('when the range or a filter is malformed, then 400 BW_ERR_SCHEMA names it; a filter that matches nothing gives zeros', async () => {
    for (const query of [
      'from=2026-02-30',
      'from=2026-01-02&to=2026-01-01',
      'from=2024-01-01&to=2026-01-01',
      'channel_type=fax',
      'version=x',
      'format=xml',
    ]) {
      const answer = await t.call('GET', `/v2/bots/${bot.appId}/analytics?${query}`);
      expect(answer.status, query).to.equal(400);
      expect(answer.json.error.code, query).to.equal('BW_ERR_SCHEMA');
    }
    // Users, each once, are known for ranges that end today only.
    const yesterday = dayOf(Date.now() - DAY_MS);
    const past = await t.call(
      'GET',
      `/v2/bots/${bot.appId}/analytics?from=${yesterday}&to=${yesterday}`,
    );
    expect(past.json.totals).to.deep.include({
      users: null,
      returning_users: null,
      conversations: 0,
    });
    const none = await analytics('&channel_type=whatsapp');
    expect(none.totals.conversations).to.equal(0);
    expect(none.states).to.deep.equal([]);
    expect(none.rates.completion).to.equal(null);
    const unknown = await t.call('GET', `/v2/bots/${randomUUID()}/analytics`);
    expect(unknown.status).to.equal(404);
  });

  it('when rollup days are older than the retention, then the prune deletes them and keeps the rest', async () => {
    const db = t.schema.db;
    const key = { app_id: bot.appId, channel_type: 'telegram', language: '', flow_version: 1 };
    await db('analytics_days').insert({
      ...key,
      day: db.raw(`current_date - 500`),
      conversations: 7,
    });
    await db('analytics_state_days').insert({
      ...key,
      day: db.raw(`current_date - 500`),
      state: 'welcome',
      entered: 7,
    });
    await db('analytics_users').insert({
      app_id: bot.appId,
      conversation_id: randomUUID(),
      channel_type: 'telegram',
      first_day: db.raw(`current_date - 600`),
      last_day: db.raw(`current_date - 500`),
    });
    const before = await analytics();
    expect(await pruneAnalytics(db, 400, 1)).to.equal(3);
    expect(await pruneAnalytics(db, 400)).to.equal(0);
    // Today's rows stay.
    expect(await analytics()).to.deep.equal(before);
  });
  it('when replies are sent, an agent answers and closes the handoff, and a user has blocked the bot, then the service figures count each once, also after every turn is delivered again', async () => {
    const first = (await analytics()).service;
    // Every user message of the scripts got its first reply sent, once, and was timed.
    expect(first.bot_response_ms.count).to.equal(EXPECTED_TOTALS.messages_in);
    expect(first.bot_response_ms.median).to.be.a('number').above(0);
    expect(first.bot_response_ms.p90).to.be.at.least(first.bot_response_ms.median);
    expect(first.agent_first_reply_ms).to.deep.equal({ count: 0, median: null, p90: null });
    expect(first.send_failures).to.deep.equal([]);

    const list = await t.call('GET', `/v2/handoffs?app_id=${bot.appId}`);
    expect(list.json.items).to.have.length(1);
    const handoff = list.json.items[0].id as string;
    expect((await t.call('POST', `/v2/handoffs/${handoff}/claim`)).status).to.equal(200);
    for (const [id, text] of [
      ['a', 'Hello, I am here.'],
      ['b', 'Let me look.'],
      ['a', 'Hello, I am here.'],
    ]) {
      const answer = await t.call('POST', `/v2/handoffs/${handoff}/messages`, {
        body: { client_message_id: id, message: { message_type: 'text', text } },
      });
      expect(answer.status).to.equal(202);
    }
    expect((await t.call('POST', `/v2/handoffs/${handoff}/close`)).status).to.equal(202);

    // A user who blocked the bot writes: their reply is refused, with Telegram's 403.
    const answer = await postTelegramUpdate(
      t,
      bot.appId,
      bot.secret,
      telegramText(BLOCKED_CHAT, (update += 1), 'hi'),
    );
    expect(answer.status).to.equal(200);
    await waitFor(async () => (await analytics()).service.send_failures.length === 1, {
      timeoutMs: 30_000,
      what: 'the refused reply counted',
    });
    await waitFor(async () => (await analytics()).service.handoffs_ended.closed === 1, {
      timeoutMs: 30_000,
      what: 'the closed handoff counted',
    });
    const expectService = async () => {
      const { service } = await analytics();
      expect(service.send_failures).to.deep.equal([{ code: '403', count: 1 }]);
      expect(service.handoffs_ended).to.deep.equal({
        closed: 1,
        returned: 0,
        timed_out: 0,
        resolved_by_agent: 1,
      });
      // The agent's first reply only; agents' replies and the refused one are not the bot's.
      expect(service.agent_first_reply_ms.count).to.equal(1);
      expect(service.bot_response_ms.count).to.equal(EXPECTED_TOTALS.messages_in);
      return service;
    };
    await expectService();
    expect(refused).to.equal(1);

    await deliverAgain(EXPECTED_TOTALS.messages_in);
    const service = await expectService();
    // The refused reply is recorded, so it was not tried again.
    expect(refused).to.equal(1);
    // A language or version filter has no service figures (their rows carry neither).
    expect((await analytics('&version=1')).service).to.equal(null);
    expect((await analytics('&channel_type=web')).service.bot_response_ms.count).to.equal(0);

    // The same per day and channel type as CSV; not with a language or version filter.
    const csv = await t.call(
      'GET',
      `/v2/bots/${bot.appId}/analytics?from=${today}&to=${today}&format=csv&rows=service`,
    );
    expect(csv.status).to.equal(200);
    const [header, row, ...more] = csv.text.trim().split('\n');
    expect(more).to.deep.equal([]);
    const cells = Object.fromEntries(
      header!.split(',').map((name, i) => [name, row!.split(',')[i]]),
    );
    expect(cells).to.deep.include({
      day: today,
      channel_type: 'telegram',
      bot_responses: String(EXPECTED_TOTALS.messages_in),
      bot_response_median_ms: String(service.bot_response_ms.median),
      agent_first_replies: '1',
      handoffs_closed: '1',
      handoffs_returned: '0',
      handoffs_timed_out: '0',
      send_failures: '1',
      send_failures_by_code: '403=1',
    });
    const filteredCsv = await t.call(
      'GET',
      `/v2/bots/${bot.appId}/analytics?format=csv&rows=service&language=en`,
    );
    expect([filteredCsv.status, filteredCsv.json.error.code]).to.deep.equal([400, 'BW_ERR_SCHEMA']);
  });
});
