/**
 * `flow` as its own process with a small heap (--max-old-space-size=160) survives many
 * conversations whose flow stores big HTTP answers: ten steps of 200 kB each would make every
 * state 2 MB, which FLOW_STATE_MAX_BYTES refuses, so neither Postgres nor the state cache ever
 * holds them. The edge, channel and language run in this process; Telegram and the flow's
 * endpoint are local servers on 127.0.0.1.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_ERROR_TEXT } from '../src/flow/engine/run-turn.ts';
import { startChannel } from '../src/channel/worker.ts';
import { startLanguage } from '../src/language/worker.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { Service } from '../src/shared/process.ts';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from './support/api.ts';
import { startComponent, stopComponent, type ComponentProcess } from './support/components.ts';
import { startPlatformStub, type PlatformStub } from './support/platform-stub.ts';
import { waitFor } from './support/services.ts';

const CONVERSATIONS = Number(process.env.HEAP_CONVERSATIONS ?? 100);

describe('flow process heap under big HTTP answers', function () {
  this.timeout(240_000);
  let stub: PlatformStub;
  let t: TestApi;
  let endpoint: Server;
  let flow: ComponentProcess | undefined;
  const services: Service[] = [];
  let appId = '';
  let secret = '';

  before(async () => {
    endpoint = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: 'z'.repeat(200_000) }));
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    stub = await startPlatformStub();
    // A lease long enough for a loaded machine: each of these turns holds the event loop for a
    // while (ten 200 kB answers parsed, a 2 MB state measured), and a lost lease redelivers turns.
    const settings = {
      TELEGRAM_API_URL: stub.url,
      FLOW_HTTP_ALLOW: '127.0.0.1/32',
      CONSUMER_LEASE_MS: '15000',
    };
    t = await startTestApi(settings);
    const steps = Array.from({ length: 10 }, (_, i) => ({
      http: { method: 'GET', url: `${origin}/page/${i}`, store: `p${i}` },
    }));
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'hoarder',
        flow: {
          version: 1,
          start: 'fetch',
          states: {
            fetch: { actions: [...steps, { send: { text: 'kept all ten' } }], end: true },
          },
        },
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    appId = created.json.app_id;
    await t.call('POST', `/v2/bots/${appId}/channels/${created.json.channels[0].id}/webhook`);
    secret = String(stub.calls.find((c) => c.method === 'setWebhook')!.body.secret_token);
    const config = loadConfig(t.env, 'flow');
    const logger = createLogger({ component: 'test', level: 'silent' });
    services.push(await startChannel(config, logger), await startLanguage(config, logger));
    flow = await startComponent('flow', `flow-heap-${Date.now()}`, {
      ...t.env,
      NODE_OPTIONS: '--max-old-space-size=160',
    });
  });

  after(async () => {
    if (flow) await stopComponent(flow, 'SIGKILL');
    for (const service of services) await service.close();
    await t?.stop();
    await stub?.close();
    await new Promise<void>((resolve) => endpoint.close(() => resolve()));
  });

  it(`when ${CONVERSATIONS} conversations each fetch ten 200 kB answers, then flow stays up and every user gets the apology`, async () => {
    for (let chat = 1; chat <= CONVERSATIONS; chat += 1) {
      const posted = await t.call('POST', `/v2/callback/telegram/${appId}`, {
        auth: false,
        headers: { 'x-telegram-bot-api-secret-token': secret },
        body: {
          update_id: chat,
          message: {
            message_id: chat,
            date: 1,
            chat: { id: chat, type: 'private' },
            from: { id: chat },
            text: 'go',
          },
        },
      });
      expect(posted.status).to.equal(200);
    }
    const replies = () => stub.calls.filter((c) => c.method === 'sendMessage');
    await waitFor(() => replies().length >= CONVERSATIONS || flow!.proc.child.exitCode !== null, {
      timeoutMs: 200_000,
      intervalMs: 200,
      what: 'a reply in every conversation',
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}; ${replies().length} replies; flow said: ${flow!.proc.stdout().slice(-3000)} ${flow!.proc.stderr().slice(-2000)}`,
      );
    });
    expect(flow!.proc.child.exitCode, flow!.proc.stderr().slice(-2000)).to.equal(null);
    expect(flow!.proc.stderr()).to.not.include('heap limit');
    expect(new Set(replies().map((c) => String(c.body.chat_id))).size).to.equal(CONVERSATIONS);
    expect(new Set(replies().map((c) => String(c.body.text)))).to.deep.equal(
      new Set([DEFAULT_ERROR_TEXT]),
    );
    const [row] = await t.schema
      .db('conversation_state')
      .where({ app_id: appId })
      .max({ bytes: t.schema.db.raw('octet_length(state::text) + octet_length(outbox::text)') });
    expect(Number(row?.bytes)).to.be.lessThan(1024 * 1024);
  });
});
