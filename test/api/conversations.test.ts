import { expect } from 'chai';
import nock from 'nock';
import { MESSAGE_TSV } from '../../src/api/admin/conversations.ts';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from '../support/api.ts';

const WA_DETAILS = {
  phone_number_id: '200300401',
  access_token: 'EAAG-access-token',
  app_secret: 'app-secret',
  verify_token: 'verify-token',
};

interface Seeded {
  appId: string;
  a: string;
  b: string;
  c: string;
}

describe('admin API: conversation filters, search and state', function () {
  this.timeout(60_000);
  let t: TestApi;
  let s: Seeded;

  const ids = async (query: string): Promise<string[]> => {
    const r = await t.call('GET', `/v2/bots/${s.appId}/conversations${query}`);
    expect(r.status, r.text).to.equal(200);
    return r.json.items.map((i: any) => i.id);
  };

  /** A bot with a Telegram and a WhatsApp channel, and conversations with messages and state. */
  async function seed(name: string): Promise<{
    appId: string;
    conversation(
      channel: 'telegram' | 'whatsapp',
      chatId: string,
      lastAt: string,
      messages: { direction: 'in' | 'out'; body: Record<string, unknown> }[],
      state?: Record<string, unknown>,
    ): Promise<string>;
  }> {
    const bot = await t.call('POST', '/v2/bots', {
      body: { name, channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
    });
    expect(bot.status, bot.text).to.equal(201);
    const appId: string = bot.json.app_id;
    const wa = await t.call('POST', `/v2/bots/${appId}/channels`, {
      body: { type: 'whatsapp', details: { ...WA_DETAILS, phone_number_id: `${Date.now()}` } },
    });
    expect(wa.status, wa.text).to.equal(201);
    const channels = {
      telegram: bot.json.channels[0].id as string,
      whatsapp: wa.json.id as string,
    };
    const db = t.schema.db;
    return {
      appId,
      async conversation(channel, chatId, lastAt, messages, state) {
        const pid = `${channel}:${chatId}`;
        await db('users').insert({ pid, first_name: 'Ana' }).onConflict('pid').ignore();
        const [row] = await db('conversations')
          .insert({
            app_id: appId,
            channel_id: channels[channel],
            user_pid: pid,
            chat_id: chatId,
            last_message_at: lastAt,
          })
          .returning('id');
        const id = (row as { id: string }).id;
        for (const m of messages) {
          await db('messages').insert({
            conversation_id: id,
            direction: m.direction,
            message_type: m.body.message_type,
            body: JSON.stringify(m.body),
          });
        }
        if (state) {
          await db('conversation_state').insert({
            conversation_id: id,
            app_id: appId,
            state: JSON.stringify(state),
          });
        }
        return id;
      },
    };
  }

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
    const bot = await seed('shop bot');
    const a = await bot.conversation(
      'telegram',
      '100',
      '2026-11-20T10:00:00Z',
      [
        { direction: 'in', body: { message_type: 'text', text: 'I want a refund please' } },
        {
          direction: 'out',
          body: {
            message_type: 'button',
            text: 'Choose one',
            buttons: [{ id: 'a', title: 'A' }],
          },
        },
      ],
      { state: 'ask_order', vars: { order: 'A-1' } },
    );
    const b = await bot.conversation('whatsapp', '15550002222', '2026-11-21T10:00:00Z', [
      { direction: 'in', body: { message_type: 'text', text: 'Hola, quiero información' } },
      { direction: 'out', body: { message_type: 'text', text: 'Gracias' } },
    ]);
    const c = await bot.conversation('telegram', '200', '2026-11-22T10:00:00Z', [
      {
        direction: 'in',
        body: {
          message_type: 'image',
          media: { platform: 'telegram', file_id: 'f' },
          caption: 'refunded receipt',
        },
      },
      {
        direction: 'in',
        body: { message_type: 'interactive_reply', choice_id: 'y', title: 'Yes' },
      },
    ]);
    const other = await seed('other bot');
    await other.conversation('telegram', '100', '2026-11-23T10:00:00Z', [
      { direction: 'in', body: { message_type: 'text', text: 'refund refund' } },
    ]);
    s = { appId: bot.appId, a, b, c };
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  it('when no filter is given, then every conversation of the bot comes newest first with channel_type, state and last_message_preview', async () => {
    const r = await t.call('GET', `/v2/bots/${s.appId}/conversations`);
    expect(r.status).to.equal(200);
    expect(
      r.json.items.map((i: any) => [
        i.id,
        i.channel_type,
        i.state,
        i.last_message_preview,
        i.last_message_type,
      ]),
    ).to.deep.equal([
      [s.c, 'telegram', null, 'Yes', 'interactive_reply'],
      [s.b, 'whatsapp', null, 'Gracias', 'text'],
      [s.a, 'telegram', 'ask_order', 'Choose one', 'button'],
    ]);
  });

  it('when filtered by channel type, chat id or time of the last message, then only the matching conversations come', async () => {
    expect(await ids('?channel_type=whatsapp')).to.deep.equal([s.b]);
    expect(await ids('?channel_type=telegram')).to.deep.equal([s.c, s.a]);
    expect(await ids('?channel_type=web')).to.deep.equal([]);
    expect(await ids('?chat_id=100')).to.deep.equal([s.a]);
    expect(await ids('?from=2026-11-21T00:00:00Z')).to.deep.equal([s.c, s.b]);
    expect(await ids('?to=2026-11-21T12:00:00%2B02:00')).to.deep.equal([s.b, s.a]);
    expect(await ids('?from=2026-11-21T00:00:00Z&to=2026-11-21T23:59:59Z')).to.deep.equal([s.b]);
  });

  it("when searched with q, then conversations whose messages hold every word (or a prefix of 3+ letters) come, and never another bot's", async () => {
    expect(await ids('?q=refund')).to.deep.equal([s.c, s.a]);
    expect(await ids('?q=REFUND%20please')).to.deep.equal([s.a]);
    expect(await ids(`?q=${encodeURIComponent('informació')}`)).to.deep.equal([s.b]);
    expect(await ids('?q=receipt&channel_type=whatsapp')).to.deep.equal([]);
    expect(await ids('?q=re')).to.deep.equal([]);
    expect(await ids('?q=nothing-like-this')).to.deep.equal([]);
  });

  it('when a search is paged, then next_after leads to the rest with the same filters', async () => {
    const first = await t.call('GET', `/v2/bots/${s.appId}/conversations?q=refund&limit=1`);
    expect(first.json.items.map((i: any) => i.id)).to.deep.equal([s.c]);
    expect(first.json.next_after).to.equal(s.c);
    expect(await ids(`?q=refund&limit=1&after=${s.c}`)).to.deep.equal([s.a]);
  });

  it('when a filter is malformed or unknown, then 400 BW_ERR_SCHEMA naming it', async () => {
    for (const [query, path] of [
      ['?channel_type=Tele!', '/query/channel_type'],
      ['?from=yesterday', '/query/from'],
      ['?to=2026-11-21', '/query/to'],
      ['?colour=red', '/query/colour'],
      ['?q=%21%21%21', '/query/q'],
      ['?q=a&q=b', '/query/q'],
    ] as const) {
      const r = await t.call('GET', `/v2/bots/${s.appId}/conversations${query}`);
      expect([r.status, r.json.error.code], query).to.deep.equal([400, 'BW_ERR_SCHEMA']);
      expect(
        r.json.error.details.problems.map((p: any) => p.path),
        query,
      ).to.include(path);
    }
  });

  it('when one conversation is asked for, then it comes with its flow state name and variables', async () => {
    const a = await t.call('GET', `/v2/conversations/${s.a}`);
    expect(a.status).to.equal(200);
    expect(a.json).to.include({
      id: s.a,
      app_id: s.appId,
      channel_type: 'telegram',
      chat_id: '100',
      state: 'ask_order',
    });
    expect(a.json.variables).to.deep.equal({ order: 'A-1' });
    expect(Date.parse(a.json.last_message_at)).to.equal(Date.parse('2026-11-20T10:00:00Z'));
    const b = await t.call('GET', `/v2/conversations/${s.b}`);
    expect(b.json).to.include({ channel_type: 'whatsapp', state: null });
    expect(b.json.variables).to.deep.equal({});
    const missing = await t.call('GET', '/v2/conversations/6f1c1f8e-0000-4000-8000-000000000000');
    expect([missing.status, missing.json.error.code]).to.deep.equal([404, 'BW_ERR_NOT_FOUND']);
    expect((await t.call('GET', '/v2/conversations/not-a-uuid')).status).to.equal(404);
    expect((await t.call('GET', `/v2/conversations/${s.a}`, { auth: false })).status).to.equal(401);
  });

  it('when the search condition is planned, then it can use the messages_text_search index (the expression matches the migration)', async () => {
    const plan = await t.schema.db.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      const { rows } = await trx.raw<{ rows: { 'QUERY PLAN': unknown }[] }>(
        `explain (format json) select 1 from messages m
         where ${MESSAGE_TSV} @@ to_tsquery('simple'::regconfig, 'refund:*')`,
      );
      return JSON.stringify(rows[0]!['QUERY PLAN']);
    });
    expect(plan).to.contain('messages_text_search');
  });
});
