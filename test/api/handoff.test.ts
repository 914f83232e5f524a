/**
 * The agent's side of a handoff, against the real edge, Redis and Postgres: the inbox, claims
 * and their race, replies published once, notes, typing, hand back and close, metrics. Agents
 * other than the admin key are served by the agent server (test/support/handoffs.ts).
 */
import { expect } from 'chai';
import nock from 'nock';
import { startTestApi, TELEGRAM_TOKEN, topicMessages, type TestApi } from '../support/api.ts';
import { ECHO_FLOW } from '../support/flows.ts';
import { makeAccount, withCookie, withToken } from '../support/accounts.ts';
import { agent, asAgent, seedHandoff } from '../support/handoffs.ts';
import { expectDescribedAs } from '../support/openapi-answer.ts';
import { clearTopic } from '../support/services.ts';

describe('handoffs: the agent side (API)', function () {
  this.timeout(30_000);
  let t: TestApi;
  let bot: { appId: string; channelId: string };
  let other: { appId: string; channelId: string };

  const createBot = async (name: string) => {
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name,
        flow: ECHO_FLOW,
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    expect(created.status, created.text).to.equal(201);
    return {
      appId: created.json.app_id as string,
      channelId: created.json.channels[0].id as string,
    };
  };

  const handoffEvents = async (): Promise<any[]> => {
    const entries = await t.redis.xrange(`${t.prefix}:{events}`, '-', '+');
    return entries
      .filter(([, fields]) => fields[fields.indexOf('type') + 1] === 'handoff')
      .map(([, fields]) => JSON.parse(fields[fields.indexOf('data') + 1]!));
  };

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
    bot = await createBot('inbox bot');
    other = await createBot('other bot');
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  beforeEach(async () => {
    await clearTopic(t.redis, t.prefix, 'channel');
    await clearTopic(t.redis, t.prefix, 'flow');
  });

  describe('the inbox', () => {
    it('when handoffs wait, then the list shows the open ones oldest first with their waiting seconds, and one shows its transcript and variables', async () => {
      const older = await seedHandoff(t, bot, {
        createdAt: new Date(Date.now() - 120_000).toISOString(),
        queue: 'billing',
        state: { state: 'listen', vars: { order: 'A-17' } },
      });
      const newer = await seedHandoff(t, bot, { queue: 'billing' });
      await seedHandoff(t, bot, { status: 'closed', queue: 'billing' });
      await t.schema.db('messages').insert([
        {
          conversation_id: older.conversationId,
          direction: 'in',
          message_type: 'text',
          body: JSON.stringify({ message_type: 'text', text: 'human please' }),
          created_at: new Date(Date.now() - 130_000).toISOString(),
        },
        {
          conversation_id: older.conversationId,
          direction: 'in',
          message_type: 'text',
          body: JSON.stringify({ message_type: 'text', text: 'hello?' }),
        },
      ]);

      const list = await t.call('GET', `/v2/handoffs?app_id=${bot.appId}&queue=billing`);
      expect(list.status, list.text).to.equal(200);
      const ids = list.json.items.map((i: any) => i.id);
      expect(ids).to.deep.equal([older.handoffId, newer.handoffId]);
      expect(list.json.items[0].waiting_s).to.be.within(119, 200);
      expect(list.json.items[0].channel_type).to.equal('telegram');

      const one = await t.call('GET', `/v2/handoffs/${older.handoffId}`);
      expect(one.status, one.text).to.equal(200);
      expect(one.json.conversation.variables).to.deep.equal({ order: 'A-17' });
      expect(one.json.conversation.state).to.equal('listen');
      expect(one.json.transcript.before.map((m: any) => m.body.text)).to.deep.equal([
        'human please',
      ]);
      expect(one.json.transcript.since.map((m: any) => m.body.text)).to.deep.equal(['hello?']);
      // What the inbox shows of it: who, where, and the states it may be handed back at.
      expect(one.json).to.include({ first_name: 'Ana', last_name: null, channel_type: 'telegram' });
      expect(one.json.chat_id).to.equal(older.chatId);
      expect(one.json.states).to.deep.equal(Object.keys(ECHO_FLOW.states).sort());
      expectDescribedAs('handoff-detail', one.json);
      for (const item of list.json.items) expectDescribedAs('handoff', item);
    });

    it('when the id is unknown or not a uuid, then 404 BW_ERR_NOT_FOUND', async () => {
      for (const id of ['0b6f7f9e-1111-4222-8333-944455556666', 'nope']) {
        const r = await t.call('GET', `/v2/handoffs/${id}`);
        expect(r.status).to.equal(404);
        expect(r.json.error.code).to.equal('BW_ERR_NOT_FOUND');
      }
    });
  });

  describe('claims', () => {
    it('when an agent claims with their token, then their console session holds it too (one person, one holder), and another agent of the bot may not reply', async () => {
      const ana = await makeAccount(t, 'agent', [bot.appId]);
      const bo = await agent(t, [bot.appId]);
      const { handoffId } = await seedHandoff(t, bot);
      const claimed = await withToken(t, ana.token, 'POST', `/v2/handoffs/${handoffId}/claim`);
      expect(claimed.status, claimed.text).to.equal(200);
      const body = {
        client_message_id: 'same-person-1',
        message: { message_type: 'text', text: 'Hello' },
      };
      const fromSession = await withCookie(
        t,
        ana.cookie,
        'POST',
        `/v2/handoffs/${handoffId}/messages`,
        body,
      );
      expect(fromSession.status, fromSession.text).to.equal(202);
      const fromOther = await asAgent(t, bo, 'POST', `/v2/handoffs/${handoffId}/messages`, {
        body: { ...body, client_message_id: 'other-1' },
      });
      expect(fromOther.status, fromOther.text).to.equal(409);
      expect(fromOther.json.error.code).to.equal('BW_ERR_HANDOFF_NOT_YOURS');
      const again = await withCookie(t, ana.cookie, 'POST', `/v2/handoffs/${handoffId}/claim`);
      expect(again.status, again.text).to.equal(200);
    });

    it('when two agents claim one waiting handoff at once, then exactly one gets 200 and the other 409 BW_ERR_HANDOFF_CLAIMED', async () => {
      const ana = await agent(t, [bot.appId]);
      const bo = await agent(t, [bot.appId]);
      for (let round = 0; round < 5; round += 1) {
        const { handoffId } = await seedHandoff(t, bot);
        const answers = await Promise.all([
          asAgent(t, ana, 'POST', `/v2/handoffs/${handoffId}/claim`),
          asAgent(t, bo, 'POST', `/v2/handoffs/${handoffId}/claim`),
        ]);
        const statuses = answers.map((a) => a.status).sort();
        expect(statuses, answers.map((a) => a.text).join(' | ')).to.deep.equal([200, 409]);
        const won = answers.find((a) => a.status === 200)!;
        const lost = answers.find((a) => a.status === 409)!;
        expect(lost.json.error.code).to.equal('BW_ERR_HANDOFF_CLAIMED');
        expect(lost.json.error.details.claimed_by).to.equal(won.json.claimed_by);
        const row = await t.schema.db('handoffs').where({ id: handoffId }).first();
        expect(row.status).to.equal('claimed');
        expect(row.claimed_by).to.equal(won.json.claimed_by);
      }
    });

    it('when an agent claims, releases and claims again, then the row and the live handoff events follow, and a repeated claim by the holder is 200', async () => {
      const ana = await agent(t, [bot.appId]);
      const { handoffId } = await seedHandoff(t, bot, { queue: 'sales' });
      expect((await asAgent(t, ana, 'POST', `/v2/handoffs/${handoffId}/claim`)).status).to.equal(
        200,
      );
      const again = await asAgent(t, ana, 'POST', `/v2/handoffs/${handoffId}/claim`);
      expect(again.status, again.text).to.equal(200);
      const released = await asAgent(t, ana, 'POST', `/v2/handoffs/${handoffId}/release`);
      expect(released.status, released.text).to.equal(200);
      expect(released.json.status).to.equal('waiting');
      expect(released.json.claimed_by).to.equal(null);
      const events = (await handoffEvents()).filter((e) => e.handoff_id === handoffId);
      expect(events.map((e) => e.status)).to.deep.equal(['claimed', 'waiting']);
      expect(events[0]).to.include({
        app_id: bot.appId,
        queue: 'sales',
        claimed_by: ana.actor,
      });
    });

    it('when an agent not assigned to the bot reads or claims its handoff, then 403 BW_ERR_FORBIDDEN, and their list leaves it out', async () => {
      const outsider = await agent(t, [other.appId]);
      const { handoffId } = await seedHandoff(t, bot);
      for (const [method, path] of [
        ['GET', `/v2/handoffs/${handoffId}`],
        ['POST', `/v2/handoffs/${handoffId}/claim`],
        ['POST', `/v2/handoffs/${handoffId}/close`],
        ['GET', `/v2/handoffs?app_id=${bot.appId}`],
      ] as const) {
        const r = await asAgent(t, outsider, method, path);
        expect(r.status, `${method} ${path}: ${r.text}`).to.equal(403);
        expect(r.json.error.code).to.equal('BW_ERR_FORBIDDEN');
      }
      const list = await asAgent(t, outsider, 'GET', '/v2/handoffs?limit=100');
      expect(list.json.items.map((i: any) => i.id)).not.to.include(handoffId);
      const row = await t.schema.db('handoffs').where({ id: handoffId }).first();
      expect(row.status).to.equal('waiting');
      expect(await topicMessages(t.redis, t.prefix, 'flow')).to.have.length(0);
    });
  });

  describe('replies', () => {
    it('when a reply is POSTed twice with one client message id, then one channel_out goes to the channel topic, in the conversation order, marked as the agent', async () => {
      const { handoffId, chatId, conversationId } = await seedHandoff(t, bot);
      expect((await t.call('POST', `/v2/handoffs/${handoffId}/claim`)).status).to.equal(200);
      const body = {
        client_message_id: 'c-1',
        message: { message_type: 'text', text: 'Hi, Ana here' },
      };
      const first = await t.call('POST', `/v2/handoffs/${handoffId}/messages`, { body });
      const second = await t.call('POST', `/v2/handoffs/${handoffId}/messages`, { body });
      expect(first.status, first.text).to.equal(202);
      expect(second.status, second.text).to.equal(202);
      expect(first.json).to.deep.equal({ turn_id: `agent:${handoffId}:c-1`, duplicate: false });
      expect(second.json.duplicate).to.equal(true);
      const published = await topicMessages(t.redis, t.prefix, 'channel');
      expect(published).to.have.length(1);
      expect(published[0]).to.deep.include({
        intent: 'channel_out',
        turn_id: `agent:${handoffId}:c-1`,
        ordering_key: `${bot.appId}:${chatId}`,
        sent_by: 'admin-key',
      });
      expect(published[0].bot_output.conversation).to.include({
        conversation_id: conversationId,
        chat_id: chatId,
        channel_type: 'telegram',
      });
      expect(published[0].bot_output.messages).to.deep.equal([
        { message_type: 'text', text: 'Hi, Ana here' },
      ]);
      const row = await t.schema.db('handoffs').where({ id: handoffId }).first();
      expect(row.first_reply_at).to.be.an.instanceOf(Date);
    });

    it('when someone who does not hold the handoff replies or shows typing, then 409 BW_ERR_HANDOFF_NOT_YOURS and nothing is published', async () => {
      const ana = await agent(t, [bot.appId]);
      const bo = await agent(t, [bot.appId]);
      const { handoffId } = await seedHandoff(t, bot);
      const body = { client_message_id: 'x', message: { message_type: 'text', text: 'hi' } };
      // Nobody holds it yet: claim first.
      const unclaimed = await asAgent(t, bo, 'POST', `/v2/handoffs/${handoffId}/messages`, {
        body,
      });
      expect(unclaimed.status).to.equal(409);
      expect(unclaimed.json.error.code).to.equal('BW_ERR_HANDOFF_NOT_YOURS');
      await asAgent(t, ana, 'POST', `/v2/handoffs/${handoffId}/claim`);
      for (const [path, options] of [
        ['messages', { body }],
        ['typing', {}],
        ['release', {}],
        ['close', {}],
        ['return', { body: { state: 'listen' } }],
      ] as const) {
        const r = await asAgent(t, bo, 'POST', `/v2/handoffs/${handoffId}/${path}`, options);
        expect(r.status, `${path}: ${r.text}`).to.equal(409);
        expect(r.json.error.code).to.equal('BW_ERR_HANDOFF_NOT_YOURS');
      }
      expect(await topicMessages(t.redis, t.prefix, 'channel')).to.have.length(0);
      expect(await topicMessages(t.redis, t.prefix, 'flow')).to.have.length(0);
    });

    it('when a reply fails its schema, then 400 BW_ERR_SCHEMA and nothing is published', async () => {
      const { handoffId } = await seedHandoff(t, bot);
      await t.call('POST', `/v2/handoffs/${handoffId}/claim`);
      for (const body of [
        { message: { message_type: 'text', text: 'no id' } },
        { client_message_id: 'a', message: { message_type: 'image', url: 'javascript:alert(1)' } },
        { client_message_id: 'a', message: { message_type: 'audio', url: 'https://x.test/a' } },
      ]) {
        const r = await t.call('POST', `/v2/handoffs/${handoffId}/messages`, { body });
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.json.error.code).to.equal('BW_ERR_SCHEMA');
      }
      expect(await topicMessages(t.redis, t.prefix, 'channel')).to.have.length(0);
    });

    it('when an agent writes a note, then it is a transcript row of status note by them, nothing goes to the channel, and a live message event announces it', async () => {
      const { handoffId, conversationId } = await seedHandoff(t, bot);
      const r = await t.call('POST', `/v2/handoffs/${handoffId}/notes`, {
        body: { text: 'asked for a refund twice' },
      });
      expect(r.status, r.text).to.equal(201);
      const rows = await t.schema.db('messages').where({ conversation_id: conversationId });
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ status: 'note', message_type: 'note', sent_by: 'admin-key' });
      expect(rows[0].body).to.deep.equal({ text: 'asked for a refund twice' });
      expect(await topicMessages(t.redis, t.prefix, 'channel')).to.have.length(0);
      const transcript = await t.call('GET', `/v2/conversations/${conversationId}/messages`);
      expect(transcript.json.items[0]).to.include({ status: 'note', sent_by: 'admin-key' });
      expectDescribedAs('message-page', transcript.json);
      // Announced like every transcript row, so the other agents' pages show it live.
      const entries = await t.redis.xrange(`${t.prefix}:{events}`, '-', '+');
      const messages = entries
        .filter(([, fields]) => fields[fields.indexOf('type') + 1] === 'message')
        .map(([, fields]) => JSON.parse(fields[fields.indexOf('data') + 1]!));
      expect(messages.filter((m) => m.conversation_id === conversationId)).to.deep.equal([
        {
          app_id: bot.appId,
          conversation_id: conversationId,
          channel_type: 'telegram',
          direction: 'out',
          message_id: String(rows[0].id),
          message_type: 'note',
          status: 'note',
          sent_by: 'admin-key',
          created_at: new Date(rows[0].created_at).toISOString(),
        },
      ]);
    });
  });

  describe('handing back and closing', () => {
    it("when the state is not in the bot's flow, then 400 BW_ERR_UNKNOWN_STATE and nothing is published", async () => {
      const { handoffId } = await seedHandoff(t, bot);
      await t.call('POST', `/v2/handoffs/${handoffId}/claim`);
      const r = await t.call('POST', `/v2/handoffs/${handoffId}/return`, {
        body: { state: 'nowhere' },
      });
      expect(r.status, r.text).to.equal(400);
      expect(r.json.error.code).to.equal('BW_ERR_UNKNOWN_STATE');
      expect(await topicMessages(t.redis, t.prefix, 'flow')).to.have.length(0);
    });

    it('when the holder hands back at a state (twice), then one flow handoff message with the conversation ordering key; 202', async () => {
      const { handoffId, chatId, conversationId } = await seedHandoff(t, bot);
      await t.call('POST', `/v2/handoffs/${handoffId}/claim`);
      const first = await t.call('POST', `/v2/handoffs/${handoffId}/return`, {
        body: { state: 'echo' },
      });
      const second = await t.call('POST', `/v2/handoffs/${handoffId}/return`, {
        body: { state: 'echo' },
      });
      expect(first.status, first.text).to.equal(202);
      expect(second.status, second.text).to.equal(202);
      const flow = await topicMessages(t.redis, t.prefix, 'flow');
      expect(flow).to.have.length(1);
      expect(flow[0]).to.deep.include({
        source: 'api',
        intent: 'handoff',
        turn_id: `handoff:${handoffId}:return`,
        ordering_key: `${bot.appId}:${chatId}`,
        handoff: { id: handoffId, action: 'return', state: 'echo', by: 'admin-key' },
      });
      expect(flow[0].conversation).to.include({ conversation_id: conversationId, chat_id: chatId });
    });

    it('when an agent hands back with a personal token, then the flow message names them whole (an actor longer than a source may be)', async () => {
      const ana = await agent(t, [bot.appId]);
      expect(ana.actor.length).to.be.greaterThan(64);
      const { handoffId } = await seedHandoff(t, bot);
      expect((await asAgent(t, ana, 'POST', `/v2/handoffs/${handoffId}/claim`)).status).to.equal(
        200,
      );
      const back = await asAgent(t, ana, 'POST', `/v2/handoffs/${handoffId}/return`, {
        body: { state: 'echo' },
      });
      expect(back.status, back.text).to.equal(202);
      const flow = await topicMessages(t.redis, t.prefix, 'flow');
      expect(flow.map((m) => m.handoff)).to.deep.equal([
        { id: handoffId, action: 'return', state: 'echo', by: ana.actor },
      ]);
    });

    it('when a handoff is closed, then a flow handoff message with action close; once it ended, 409 BW_ERR_HANDOFF_ENDED', async () => {
      const { handoffId } = await seedHandoff(t, bot);
      const closed = await t.call('POST', `/v2/handoffs/${handoffId}/close`);
      expect(closed.status, closed.text).to.equal(202);
      const flow = await topicMessages(t.redis, t.prefix, 'flow');
      expect(flow.map((m) => m.handoff)).to.deep.equal([
        { id: handoffId, action: 'close', by: 'admin-key' },
      ]);
      const ended = await seedHandoff(t, bot, { status: 'returned' });
      for (const path of ['claim', 'close', 'typing']) {
        const r = await t.call('POST', `/v2/handoffs/${ended.handoffId}/${path}`);
        expect(r.status, `${path}: ${r.text}`).to.equal(409);
        expect(r.json.error.code).to.equal('BW_ERR_HANDOFF_ENDED');
      }
    });
  });

  describe('metrics', () => {
    it('when handoffs wait, end and get a first reply, then /metrics shows the waiting, the outcomes and the first reply time', async () => {
      const metricsBot = await createBot('metrics bot');
      await t.schema.db('handoffs').delete();
      await seedHandoff(t, metricsBot, { queue: 'vip' });
      await seedHandoff(t, metricsBot);
      await seedHandoff(t, metricsBot, { status: 'returned' });
      await seedHandoff(t, metricsBot, { status: 'fallback' });
      const replied = await seedHandoff(t, metricsBot, {
        createdAt: new Date(Date.now() - 40_000).toISOString(),
      });
      const scrape = async () => {
        const text = (await t.call('GET', '/metrics', { auth: false })).text;
        return (line: string): number => {
          const found = text.split('\n').find((l) => l.startsWith(`${line} `));
          if (!found) throw new Error(`no ${line} in /metrics`);
          return Number(found.slice(line.length + 1));
        };
      };
      const before = await scrape();
      const count = 'botwire_handoff_first_reply_seconds_count';
      const le30 = 'botwire_handoff_first_reply_seconds_bucket{le="30"}';
      const le60 = 'botwire_handoff_first_reply_seconds_bucket{le="60"}';
      await t.call('POST', `/v2/handoffs/${replied.handoffId}/claim`);
      for (const id of ['m1', 'm2']) {
        const r = await t.call('POST', `/v2/handoffs/${replied.handoffId}/messages`, {
          body: { client_message_id: id, message: { message_type: 'text', text: id } },
        });
        expect(r.status, r.text).to.equal(202);
      }
      const value = await scrape();
      expect(value('botwire_handoffs_waiting')).to.equal(2);
      expect(value('botwire_handoffs_waiting_by_queue{queue="vip"}')).to.equal(1);
      expect(value('botwire_handoffs_waiting_by_queue{queue=""}')).to.equal(1);
      expect(value('botwire_handoffs{status="returned"}')).to.equal(1);
      expect(value('botwire_handoffs{status="fallback"}')).to.equal(1);
      expect(value('botwire_handoffs{status="claimed"}')).to.equal(1);
      // One first reply (the second reply is not a first), about 40 s after the start.
      expect(value(count) - before(count)).to.equal(1);
      expect(value(le30) - before(le30)).to.equal(0);
      expect(value(le60) - before(le60)).to.equal(1);
    });
  });
});
