import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import {
  createTelegramBot,
  postTelegramUpdate,
  startTestApi,
  telegramText,
  topicMessages,
  whatsappPayload,
  type TelegramTestBot,
  type TestApi,
} from '../support/api.ts';
import { waitFor, withStatements } from '../support/services.ts';

/** Raw connections of the running test, closed after it. */
const rawSockets: Socket[] = [];

interface RawAnswer {
  status: number;
  code?: string;
  /** Settles when the edge has closed the connection. */
  closed: Promise<void>;
}

/**
 * Sends a request's headers at once and then its body one byte every `everyMs` (all of it when
 * `everyMs` is 0, none when `body` is undefined), from `localAddress`; resolves with the answer.
 */
function rawRequest(
  t: TestApi,
  options: {
    path: string;
    headers: Record<string, string>;
    body?: string;
    length?: number;
    everyMs?: number;
    localAddress?: string;
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port: Number(new URL(t.url).port),
      localAddress: options.localAddress ?? '127.0.0.1',
    });
    const length = options.length ?? Buffer.byteLength(options.body ?? '');
    const head = [
      `POST ${options.path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      ...Object.entries(options.headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    rawSockets.push(socket);
    let received = '';
    const drip: { timer?: NodeJS.Timeout } = {};
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? -1);
      if (end < 0 || length < 0 || Buffer.byteLength(received) < end + 4 + length) return;
      clearInterval(drip.timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      const code = /"code":"(BW_ERR_[A-Z_]+)"/.exec(received)?.[1];
      resolve({ status, code, closed });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip.timer);
      reject(new Error(`closed without an answer: ${JSON.stringify(received)}`));
    });
    socket.write(head);
    const body = options.body ?? '';
    if (options.everyMs === undefined || options.everyMs === 0) {
      socket.end(body);
      return;
    }
    let sent = 0;
    drip.timer = setInterval(() => {
      if (sent >= body.length || socket.destroyed) return clearInterval(drip.timer);
      socket.write(body[sent] ?? '');
      sent += 1;
    }, options.everyMs);
  });
}

/** Opens a TCP connection from `localAddress`; resolves once connected. */
function openSocket(t: TestApi, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port: Number(new URL(t.url).port), localAddress },
      () => resolve(socket),
    );
    socket.on('error', reject);
  });
}

/** GET /healthz from `localAddress` on a connection of its own. */
function healthFrom(t: TestApi, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}/healthz`, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('edge limits: slow bodies, connection caps, unknown ids, cheap checks first', () => {
  let t: TestApi;
  let bot: TelegramTestBot;
  const sockets: Socket[] = [];

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({
      EDGE_BODY_TIMEOUT_MS: '600',
      EDGE_MAX_CONNECTIONS_PER_ADDRESS: '5',
    });
    bot = await createTelegramBot(t);
    const wa = await t.call('POST', '/v2/bots', {
      body: {
        name: 'signed whatsapp',
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: '5550100', access_token: 'EAAG-x', app_secret: 'app-secret' },
        },
      },
    });
    expect(wa.status, wa.text).to.equal(201);
  });

  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const socket of rawSockets.splice(0)) socket.destroy();
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  it('when a body arrives a byte every 200 ms, then it is cut off with 408 BW_ERR_BODY_TIMEOUT and the connection closed, while a valid Telegram callback is answered meanwhile', async () => {
    const update = JSON.stringify(telegramText(7001, 900001, 'slow'));
    const slow = rawRequest(t, {
      path: `/v2/callback/telegram/${bot.appId}`,
      headers: { 'X-Telegram-Bot-Api-Secret-Token': bot.secret },
      body: update,
      everyMs: 200,
    });
    const valid = await postTelegramUpdate(
      t,
      bot.appId,
      bot.secret,
      telegramText(7002, 900002, 'hi'),
    );
    expect(valid.status, valid.text).to.equal(200);
    const answer = await slow;
    expect([answer.status, answer.code]).to.deep.equal([408, 'BW_ERR_BODY_TIMEOUT']);
    await answer.closed;
    const published = await topicMessages(t.redis, t.prefix, 'channel');
    expect(published.map((m) => m.bot_input.update.update_id)).to.deep.equal([900002]);
  });

  it('when one address holds its cap of connections, then its next one is closed at once while another address (127.0.0.2) is served', async () => {
    for (let i = 0; i < 5; i += 1) sockets.push(await openSocket(t, '127.0.0.1'));
    const extra = await openSocket(t, '127.0.0.1');
    sockets.push(extra);
    // Closed by the edge without a byte read or written.
    let got = '';
    extra.on('data', (c: Buffer) => (got += c.toString()));
    extra.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => extra.destroyed || extra.readableEnded, {
      what: 'the extra connection closing',
    });
    expect(got).to.equal('');
    expect(await healthFrom(t, '127.0.0.2')).to.equal(200);
    // Once the held ones close, the address is served again.
    for (const socket of sockets.splice(0)) socket.destroy();
    expect(
      await waitFor(() => healthFrom(t, '127.0.0.1').catch(() => 0), { what: '200' }),
    ).to.equal(200);
  });

  it('when callbacks name unknown app ids and phone number ids, then none of them reaches Postgres', async () => {
    const { statements } = await withStatements(t.api.db, async () => {
      for (let i = 0; i < 50; i += 1) {
        const path = `/v2/callback/telegram/${randomUUID()}`;
        const unknownBot = await t.call('POST', path, {
          auth: false,
          headers: { 'x-telegram-bot-api-secret-token': 'x' },
          body: telegramText(1, i, 'x'),
        });
        expect(unknownBot.json.error.code).to.equal('BW_ERR_UNKNOWN_BOT');
        const notUuid = await t.call('POST', `/v2/callback/telegram/not-a-uuid-${i}`, {
          auth: false,
          body: telegramText(1, i, 'x'),
        });
        expect(notUuid.json.error.code).to.equal('BW_ERR_UNKNOWN_BOT');
        const unknownNumber = await t.call('POST', '/callback', {
          auth: false,
          headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
          body: whatsappPayload(`9${i}${Date.now()}`, [{ id: `wamid.${i}`, body: 'x' }]),
        });
        expect(unknownNumber.json.error.code).to.equal('BW_ERR_UNKNOWN_BOT');
      }
    });
    expect(statements).to.deep.equal([]);
  });

  it('when a bot is created after its id was refused, then its callbacks are accepted at once', async () => {
    const before = await t.call('POST', '/callback', {
      auth: false,
      headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      body: whatsappPayload('5550199', [{ id: 'wamid.late', body: 'x' }]),
    });
    expect(before.json.error.code).to.equal('BW_ERR_UNKNOWN_BOT');
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'late whatsapp',
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: '5550199', access_token: 'EAAG-y' },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const after = await t.call('POST', '/callback', {
      auth: false,
      body: whatsappPayload('5550199', [{ id: 'wamid.late', body: 'x' }]),
    });
    expect(after.status, after.text).to.equal(200);
  });

  it('when a WhatsApp callback for a bot whose channels all have app secrets comes without a signature, then 401 BW_ERR_BAD_SIGNATURE before its body is read', async () => {
    const appId = (await t.call('GET', '/v2/bots?limit=100')).json.items.find(
      (b: { name: string }) => b.name === 'signed whatsapp',
    ).app_id as string;
    // The body is announced and never sent: an edge that waited for it would answer 408.
    const answer = await rawRequest(t, {
      path: `/v2/callback/whatsapp/${appId}`,
      headers: {},
      length: 500,
      body: '{',
      everyMs: 60_000,
    });
    expect([answer.status, answer.code]).to.deep.equal([401, 'BW_ERR_BAD_SIGNATURE']);
  });

  it('when a Telegram callback comes without its secret header, then 401 BW_ERR_BAD_SECRET before its body is read', async () => {
    const answer = await rawRequest(t, {
      path: `/v2/callback/telegram/${bot.appId}`,
      headers: {},
      length: 500,
      body: '{',
      everyMs: 60_000,
    });
    expect([answer.status, answer.code]).to.deep.equal([401, 'BW_ERR_BAD_SECRET']);
  });
});
