/**
 * The console's test chats end to end in one process: edge, channel, language and flow against
 * real Redis and Postgres. A Telegram-only bot is tried as a draft, as its current version and
 * switched off; its live version and its users' conversation list stay as they were.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  conversationSuite,
  startConversationComponents,
  TELEGRAM_TOKEN,
  type TestApi,
} from './support/api.ts';
import { openSse, type SseStream } from './support/sse.ts';
import { shopFlow } from './support/flows.ts';

/** The shop's menu greeting with `greeting`; its Book a repair asks which day. */
const shopMenu = (greeting: string) => shopFlow({ greeting, book: 'Which day?' });

describe('test chats (edge, channel, language, flow)', function () {
  this.timeout(30_000);
  let t: TestApi;
  let appId: string;
  /** A stand-in for the shop's order API (a third party), reached by an HTTP step. */
  let orders: Server;
  let ordersUrl: string;
  const clients: SseStream[] = [];

  before(async () => {
    orders = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: req.url?.includes('/42') ? 'shipped' : 'unknown' }));
    });
    await new Promise<void>((resolve) => orders.listen(0, '127.0.0.1', resolve));
    ordersUrl = `http://127.0.0.1:${(orders.address() as AddressInfo).port}`;
  });
  conversationSuite({ FLOW_HTTP_ALLOW: '127.0.0.1/32' }, async (edge) => {
    t = edge;
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'telegram shop',
        flow: shopMenu('Live hello'),
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    expect(created.status, created.text).to.equal(201);
    appId = created.json.app_id;
    return startConversationComponents(t);
  });

  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  after(() => orders?.close());

  const saveDraft = async (flow: unknown) => {
    const saved = await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow } });
    expect(saved.status, saved.text).to.equal(200);
    return saved.json;
  };

  const start = async (body: Record<string, unknown> = {}) => {
    const answer = await t.call('POST', `/v2/bots/${appId}/test-chats`, { body });
    expect(answer.status, answer.text).to.equal(201);
    const chat = answer.json as { chat_id: string; source: unknown; events_url: string };
    const events = await openSse(t.url, `/v2/bots/${appId}/test-chats/${chat.chat_id}/events`, {
      authorization: `Bearer ${t.adminKey}`,
    });
    expect(events.status).to.equal(200);
    clients.push(events);
    return { ...chat, events };
  };

  const say = async (chatId: string, body: Record<string, unknown>) => {
    const answer = await t.call('POST', `/v2/bots/${appId}/test-chats/${chatId}/messages`, {
      body: { client_message_id: randomUUID(), ...body },
    });
    expect(answer.status, answer.text).to.equal(202);
    return answer;
  };

  /** The text of each bot reply on the stream, in order. */
  const replies = (events: SseStream) =>
    events.events
      .map((e) => e.data)
      .filter((d) => d.direction === 'out')
      .map((d) => d.text);

  it('when a Telegram-only bot is tried as a draft, then the draft answers and the live version, its channels and its users’ conversations are unchanged', async () => {
    const draft = await saveDraft(shopMenu('Draft hello'));
    const chat = await start();
    expect(chat.source).to.deep.equal({ draft: draft.revision });

    await say(chat.chat_id, { text: 'hi' });
    await chat.events.waitForEvents(2);
    const [echo, greeting] = chat.events.events.map((e) => e.data);
    expect(echo).to.deep.include({ direction: 'in', message_type: 'text', text: 'hi' });
    expect(greeting).to.deep.include({ direction: 'out', text: 'Draft hello' });
    await say(chat.chat_id, { button_id: 'hours' });
    await chat.events.waitForEvents(4);
    expect(replies(chat.events)).to.deep.equal(['Draft hello', 'We are open 9 to 5.']);

    const bot = (await t.call('GET', `/v2/bots/${appId}`)).json;
    expect(bot.flow_version).to.equal(1);
    expect(bot.flow.states.welcome.actions[0].send.text).to.equal('Live hello');
    expect(bot.channels.map((c: { type: string }) => c.type)).to.deep.equal(['telegram']);
    const listed = await t.call('GET', `/v2/bots/${appId}/conversations`);
    expect(listed.json.items).to.deep.equal([]);
    const tests = await t.call('GET', `/v2/bots/${appId}/conversations?channel_type=console`);
    expect(tests.json.items.map((c: { id: string }) => c.id)).to.deep.equal([
      greeting.conversation_id,
    ]);
  });

  it('when the draft changes, then a new test chat runs the new draft and the one started before keeps the flow it started with', async () => {
    await saveDraft(shopMenu('First draft'));
    const before = await start();
    await saveDraft(shopMenu('Second draft'));
    const after = await start();
    await say(before.chat_id, { text: 'hi' });
    await say(after.chat_id, { text: 'hi' });
    await before.events.waitForEvents(2);
    await after.events.waitForEvents(2);
    expect(replies(before.events)).to.deep.equal(['First draft']);
    expect(replies(after.events)).to.deep.equal(['Second draft']);
  });

  it('when the current version or a numbered one is asked for, then the test chat runs it', async () => {
    const current = await start({ version: 'current' });
    expect(current.source).to.deep.equal({ version: 1 });
    const numbered = await start({ version: 1 });
    await say(current.chat_id, { text: 'hi' });
    await say(numbered.chat_id, { text: 'hi' });
    await current.events.waitForEvents(2);
    await numbered.events.waitForEvents(2);
    expect(replies(current.events)).to.deep.equal(['Live hello']);
    expect(replies(numbered.events)).to.deep.equal(['Live hello']);
  });

  it('when the bot is switched off, then its test chats still answer', async () => {
    const off = await t.call('PATCH', `/v2/bots/${appId}`, { body: { active: false } });
    expect(off.status, off.text).to.equal(200);
    try {
      const chat = await start({ version: 'current' });
      await say(chat.chat_id, { text: 'hi' });
      await chat.events.waitForEvents(2);
      expect(replies(chat.events)).to.deep.equal(['Live hello']);
    } finally {
      await t.call('PATCH', `/v2/bots/${appId}`, { body: { active: true } });
    }
  });

  it('when the draft could not be published, or the version or chat does not exist, then the test chat is refused with the stable code and nothing starts', async () => {
    const broken = shopMenu('Broken');
    (broken.states.welcome.transitions[1] as { to: string }).to = 'nowhere';
    await saveDraft(broken);
    const invalid = await t.call('POST', `/v2/bots/${appId}/test-chats`, { body: {} });
    expect(invalid.status).to.equal(422);
    expect(invalid.json.error.code).to.equal('BW_ERR_FLOW_INVALID');
    expect(invalid.json.error.details.problems[0].path).to.match(/nowhere|transitions/);

    const missing = await t.call('POST', `/v2/bots/${appId}/test-chats`, { body: { version: 9 } });
    expect(missing.status).to.equal(404);
    const wrongBody = await t.call('POST', `/v2/bots/${appId}/test-chats`, {
      body: { version: 'tomorrow' },
    });
    expect(wrongBody.json.error.code).to.equal('BW_ERR_SCHEMA');
    const unknownChat = await t.call('POST', `/v2/bots/${appId}/test-chats/t_nope/messages`, {
      body: { client_message_id: 'x', text: 'hi' },
    });
    expect(unknownChat.status).to.equal(404);
    const unknownBot = await t.call('POST', `/v2/bots/${randomUUID()}/test-chats`, { body: {} });
    expect(unknownBot.json.error.code).to.equal('BW_ERR_UNKNOWN_BOT');
    const count = await t.api.db('test_chats').where({ app_id: appId }).count<{ n: string }[]>({
      n: '*',
    });
    // The chats of the tests above, and none of this one's.
    expect(Number(count[0]!.n)).to.equal(6);
  });

  it('when a test chat turn takes a branch and makes an HTTP step, then its trace names the transition with its condition, the call with its time and result, the variables it set and what was sent', async () => {
    const flow = {
      version: 1,
      start: 'ask',
      states: {
        ask: {
          actions: [{ send: { text: 'Your order number?' } }],
          wait: { store: 'order', expect: 'number' },
          transitions: [{ when: { '>': [{ var: 'order' }, 0] }, to: 'lookup' }, { to: 'ask' }],
        },
        lookup: {
          actions: [
            {
              http: {
                method: 'GET',
                url: `${ordersUrl}/orders/{{order}}?key=secret`,
                store: 'found',
              },
            },
            { send: { text: 'Order {{order}}: {{found.body.status}}.' } },
          ],
          end: true,
        },
      },
    };
    await saveDraft(flow);
    const chat = await start();
    await say(chat.chat_id, { text: 'hi' });
    await chat.events.waitForEvents(2);
    await say(chat.chat_id, { text: '42' });
    await chat.events.waitForEvents(4);
    expect(replies(chat.events)).to.deep.equal(['Your order number?', 'Order 42: shipped.']);

    const conversationId = chat.events.events[0]!.data.conversation_id;
    const rows = (await t.call('GET', `/v2/conversations/${conversationId}/messages?limit=100`))
      .json.items as { message_type: string; body: any }[];
    const traces = rows.filter((r) => r.message_type === 'note' && r.body.trace);
    expect(traces.map((r) => r.body.text)).to.deep.equal([
      'Turn trace: ask.',
      'Turn trace: lookup.',
    ]);
    const second = traces[1]!.body.trace;
    expect(second.began).to.deep.equal({ input: { message_type: 'text', text: '42' } });
    expect(second.steps[0]).to.deep.equal({
      transition: { from: 'ask', to: 'lookup', index: 0, when: { '>': [{ var: 'order' }, 0] } },
    });
    expect(second.steps[1]).to.deep.equal({ enter: 'lookup' });
    const call = second.steps.find((s: any) => s.call)?.call;
    expect(call).to.deep.include({
      kind: 'http',
      what: `GET ${ordersUrl}/orders/42`,
      outcome: 'ok (HTTP 200)',
    });
    expect(call.ms).to.be.a('number');
    expect(JSON.stringify(second)).to.not.include('secret');
    expect(second.steps.at(-1)).to.deep.equal({ end: 'lookup' });
    expect(second.vars_before).to.deep.equal({});
    expect(second.vars_after).to.deep.include({ order: 42 });
    expect(second.vars_after.found.body).to.deep.equal({ status: 'shipped' });
    expect(second.sent).to.deep.equal([{ message_type: 'text', text: 'Order 42: shipped.' }]);
  });
});
