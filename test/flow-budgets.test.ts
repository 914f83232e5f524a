/**
 * One bot's flow cannot hurt the service: end to end (edge, channel, language, flow in this
 * process, real Redis and Postgres, Telegram on nock), flows whose HTTP steps fetch big answers,
 * call out in a loop or build a huge state get the documented code on their error path or an
 * apology, and every turn is stored within FLOW_STATE_MAX_BYTES; a flow's HTTP step cannot reach
 * the metadata address or the service's own port. Third parties are a local server on 127.0.0.1.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { DEFAULT_ERROR_TEXT } from '../src/flow/engine/run-turn.ts';
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

const MAX_BODY = 65_536;
const MAX_STATE = 131_072;

/** Every Telegram sendMessage, by chat. */
function captureByChat(): Map<string, string[]> {
  const sent = new Map<string, string[]>();
  nock('https://telegram.example.test')
    .persist()
    .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
    .reply((_uri, body) => {
      const { chat_id: chat, text } = body as { chat_id: string; text: string };
      sent.set(chat, [...(sent.get(chat) ?? []), text]);
      return [200, { ok: true, result: { message_id: 1 } }];
    });
  return sent;
}

/** The endpoints flows call: answers of 1 MiB (streamed, no length), 60 KB, and a counter. */
async function startThirdParty(): Promise<{
  server: Server;
  origin: string;
  hits: Map<string, number>;
}> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      res.write('{"data":"');
      for (let i = 0; i < 16; i += 1) res.write(chunk);
      res.end('"}');
    } else if (path === '/chunk') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: 'y'.repeat(60_000) }));
    } else if (path === '/metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ n: hits.get(path) }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** A flow that makes one HTTP step to `url` and reports `{{r.code}}` when it failed. */
function oneStep(url: string, ok = 'ok'): Record<string, unknown> {
  return {
    version: 1,
    start: 'call',
    states: {
      call: {
        actions: [{ http: { method: 'GET', url, store: 'r' } }],
        transitions: [{ when: { '!!': [{ var: 'r.code' }] }, to: 'failed' }, { to: 'done' }],
      },
      failed: { actions: [{ send: { text: 'failed: {{r.code}}' } }], end: true },
      done: { actions: [{ send: { text: ok } }], end: true },
    },
  };
}

async function stateRows(t: TestApi, appId: string): Promise<{ bytes: number; state: any }[]> {
  return t.schema
    .db('conversation_state')
    .where({ app_id: appId })
    .select(
      t.schema.db.raw('octet_length(state::text) + octet_length(outbox::text) as bytes'),
      'state',
    );
}

describe('flow budgets', function () {
  this.timeout(60_000);
  let t: TestApi;
  let third: Awaited<ReturnType<typeof startThirdParty>>;
  let sent: Map<string, string[]>;
  const bots: Record<string, TelegramTestBot> = {};

  conversationSuite(
    {
      FLOW_HTTP_ALLOW: '127.0.0.1/32',
      FLOW_HTTP_MAX_BODY_BYTES: String(MAX_BODY),
      FLOW_STATE_MAX_BYTES: String(MAX_STATE),
      FLOW_HTTP_MAX_STEPS: '3',
    },
    async (edge) => {
      t = edge;
      third = await startThirdParty();
      const o = third.origin;
      bots.big = await createTelegramBot(t, { name: 'big', flow: oneStep(`${o}/big`) });
      bots.chunk = await createTelegramBot(t, { name: 'chunk', flow: oneStep(`${o}/chunk`) });
      bots.hoard = await createTelegramBot(t, {
        name: 'hoard',
        flow: {
          version: 1,
          start: 'fetch',
          states: {
            fetch: {
              actions: [
                { http: { method: 'GET', url: `${o}/chunk`, store: 'a' } },
                { http: { method: 'GET', url: `${o}/chunk`, store: 'b' } },
                { http: { method: 'GET', url: `${o}/chunk`, store: 'c' } },
                { send: { text: 'stored all three' } },
              ],
              end: true,
            },
          },
        },
      });
      bots.loop = await createTelegramBot(t, {
        name: 'loop',
        flow: {
          version: 1,
          start: 'call',
          states: {
            call: {
              actions: [{ http: { method: 'GET', url: `${o}/count`, store: 'r' } }],
              transitions: [{ when: { '!!': [{ var: 'r.code' }] }, to: 'limit' }, { to: 'call' }],
            },
            limit: { actions: [{ send: { text: 'limit: {{r.code}}' } }], end: true },
          },
        },
      });
      // Each half makes 40 × 60,000 characters (2.4 M, under MAX_RENDERED_CHARS's 4 Mi) in its
      // own run of the engine, the second after an HTTP step: 4.8 M in one turn.
      const half = [
        { http: { method: 'GET', url: `${o}/chunk`, store: 'r' } },
        { set: { big: '{{r.body.data}}'.repeat(40) } },
        { set: { big: '' } },
      ];
      bots.render = await createTelegramBot(t, {
        name: 'render',
        flow: {
          version: 1,
          start: 'build',
          states: {
            build: {
              actions: [...half, { send: { text: 'half' } }, ...half, { send: { text: 'done' } }],
              end: true,
            },
          },
        },
      });
      bots.metadata = await createTelegramBot(t, {
        name: 'metadata',
        flow: oneStep(`${o}/metadata`),
      });
      sent = captureByChat();
      return startConversationComponents(t);
    },
  );
  after(() => new Promise<void>((resolve) => third.server.close(() => resolve())));

  const say = (bot: string, chat: number, update: number) =>
    postTelegramUpdate(t, bots[bot]!.appId, bots[bot]!.secret, telegramText(chat, update, 'hi'));
  const reply = (chat: number) =>
    waitFor(() => sent.get(String(chat)), { what: `a reply in chat ${chat}`, timeoutMs: 20_000 });

  it('when 40 conversations each fetch a 1 MiB answer, then each step fails with BW_ERR_FLOW_BUDGET, the flow error path replies, and every stored state stays small', async () => {
    for (let i = 0; i < 40; i += 1) await say('big', 1000 + i, 1000 + i);
    for (let i = 0; i < 40; i += 1) {
      expect(await reply(1000 + i)).to.deep.equal(['failed: BW_ERR_FLOW_BUDGET']);
    }
    const rows = await stateRows(t, bots.big!.appId);
    expect(rows).to.have.length(40);
    for (const row of rows) {
      expect(row.bytes).to.be.lessThan(4096);
      expect(row.state.vars.r.code).to.equal('BW_ERR_FLOW_BUDGET');
    }
  });

  it('when an answer fits the cap, then it is stored and the flow goes on', async () => {
    await say('chunk', 2000, 2000);
    expect(await reply(2000)).to.deep.equal(['ok']);
    const [row] = await stateRows(t, bots.chunk!.appId);
    expect(row!.state.vars.r.body.data).to.have.length(60_000);
  });

  it('when a turn would store more than FLOW_STATE_MAX_BYTES, then the user gets the apology, the conversation ends with its variables cleared, and nothing big is stored', async () => {
    await say('hoard', 3000, 3000);
    expect(await reply(3000)).to.deep.equal([DEFAULT_ERROR_TEXT]);
    const [row] = await stateRows(t, bots.hoard!.appId);
    expect(row!.bytes).to.be.lessThan(MAX_STATE);
    expect(row!.state).to.deep.include({ vars: {}, ended: true });
    // The next message starts over and meets the same cap: the bot keeps answering.
    await say('hoard', 3000, 3001);
    await waitFor(() => sent.get('3000')?.length === 2, { what: 'the second apology' });
  });

  it('when a flow calls out in a loop, then the step after FLOW_HTTP_MAX_STEPS is not made and the flow error path gets BW_ERR_FLOW_BUDGET', async () => {
    await say('loop', 4000, 4000);
    expect(await reply(4000)).to.deep.equal(['limit: BW_ERR_FLOW_BUDGET']);
    expect(third.hits.get('/count')).to.equal(3);
  });

  it("when a turn's templates pass MAX_RENDERED_CHARS over two runs of the engine (before and after an HTTP step), then the turn stops: the apology alone, the conversation ended, its variables cleared", async () => {
    await say('render', 6000, 6000);
    expect(await reply(6000)).to.deep.equal([DEFAULT_ERROR_TEXT]);
    const [row] = await stateRows(t, bots.render!.appId);
    expect(row!.state).to.deep.include({ vars: {}, ended: true });
  });

  it('when an allowed endpoint redirects to the metadata address, then the step fails with BW_ERR_FLOW_HTTP_REFUSED and nothing from there reaches the chat', async () => {
    await say('metadata', 5000, 5000);
    expect(await reply(5000)).to.deep.equal(['failed: BW_ERR_FLOW_HTTP_REFUSED']);
  });
});

describe('flow HTTP steps with the default allow-list', function () {
  this.timeout(60_000);
  let t: TestApi;
  let bot: TelegramTestBot;
  let sent: Map<string, string[]>;

  conversationSuite({}, async (edge) => {
    t = edge;
    const port = new URL(t.url).port;
    bot = await createTelegramBot(t, {
      name: 'inward',
      flow: {
        version: 1,
        start: 'call',
        states: {
          call: {
            actions: [
              { http: { method: 'GET', url: `http://127.0.0.1:${port}/metrics`, store: 'm' } },
              { http: { method: 'GET', url: `http://2130706433:${port}/readyz`, store: 'r' } },
              {
                http: {
                  method: 'GET',
                  url: `http://[::ffff:127.0.0.1]:${port}/readyz`,
                  store: 'v',
                },
              },
              { send: { text: '{{m.code}} {{r.code}} {{v.code}} {{m.body}}{{r.body}}{{v.body}}' } },
            ],
            end: true,
          },
        },
      },
    });
    sent = captureByChat();
    return startConversationComponents(t);
  });

  it("when a flow calls the service's own /metrics and /readyz, then every step is refused with BW_ERR_FLOW_HTTP_REFUSED and no answer reaches the chat", async () => {
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(6000, 6000, 'hi'));
    const texts = await waitFor(() => sent.get('6000'), { what: 'the reply', timeoutMs: 20_000 });
    expect(texts).to.deep.equal([
      'BW_ERR_FLOW_HTTP_REFUSED BW_ERR_FLOW_HTTP_REFUSED BW_ERR_FLOW_HTTP_REFUSED ',
    ]);
  });
});
