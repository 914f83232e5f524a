/**
 * CREDENTIALS_KEY against real Postgres and Redis: a key that opens no stored channel stops api
 * and channel with one BW_ERR_CREDENTIALS_KEY naming every channel; CREDENTIALS_KEY_PREVIOUS keeps
 * every bot working through a rotation; ./scripts/rotate-credentials-key.sh re-seals every channel
 * (a second run changes nothing), after which the previous key can go; a channel no configured key
 * opens is reported and refused alone. Telegram and WhatsApp are nock stand-ins.
 */
import { expect } from 'chai';
import nock from 'nock';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { startApi, type RunningApi } from '../src/api/worker.ts';
import { startChannel } from '../src/channel/worker.ts';
import { BotStore } from '../src/shared/bots/store.ts';
import { Producer } from '../src/shared/bus/producer.ts';
import { listDeadLetters } from '../src/shared/bus/dead-letters.ts';
import { keyId } from '../src/shared/crypto.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { Service } from '../src/shared/process.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import {
  callEdge,
  createTelegramBot,
  postTelegramUpdate,
  startTestApi,
  TELEGRAM_TOKEN,
  telegramChannelOut,
  telegramText,
  whatsappPayload,
  type CallOptions,
  type CallResult,
  type TestApi,
} from './support/api.ts';
import { componentArgs, envOf } from './support/components.ts';
import { capturingLogger } from './support/logs.ts';
import { run } from './support/run.ts';
import { waitFor } from './support/services.ts';

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const STRANGER = randomBytes(32).toString('base64');
const idOf = (key: string): string => keyId(Buffer.from(key, 'base64'));

const NUMBER = '300400777';
const APP_SECRET = 'wa-app-secret-for-rotation';

interface Channels {
  rows(): Promise<{ id: string; app_id: string; credentials: string }[]>;
}

describe('CREDENTIALS_KEY: a wrong key, a previous key, rotation', function () {
  this.timeout(90_000);
  let t: TestApi;
  let tg: { appId: string; channelId: string; secret: string };
  let wa: { appId: string; channelId: string };
  let edge: RunningApi | undefined;
  let channel: Service | undefined;
  let producer: Producer;
  let chat = 100;

  const db: Channels = {
    rows: () => t.schema.db('channels').select('id', 'app_id', 'credentials').orderBy('id'),
  };
  const settings = (keys: Record<string, string>) => ({ ...t.env, ...keys });
  /** `t.call`, against the edge this suite started last. */
  const call = (method: string, path: string, options?: CallOptions): Promise<CallResult> =>
    callEdge(`http://127.0.0.1:${edge?.port ?? t.api.port}`, t.adminKey, method, path, options);

  /** Starts api (its lines kept) and channel in this process with `keys`. */
  async function startWith(keys: Record<string, string>): Promise<string[]> {
    await stopAll();
    const config = loadConfig(settings(keys), 'api');
    const { logger, lines } = capturingLogger({ component: 'api', level: 'info' });
    edge = await startApi(config, logger);
    channel = await startChannel(config, createLogger({ component: 'channel', level: 'silent' }));
    return lines;
  }

  async function stopAll(): Promise<void> {
    await channel?.close();
    await edge?.close();
    channel = undefined;
    edge = undefined;
  }

  const rotate = (keys: Record<string, string>) =>
    run('bash', ['scripts/rotate-credentials-key.sh'], { env: envOf(settings(keys)) });

  /** A Telegram text through the edge (the webhook secret must open), then a reply out through channel (the bot token must open). */
  async function telegramRoundTrip(): Promise<void> {
    chat += 1;
    const update = chat * 10;
    const answer = await postTelegramUpdate(
      { call },
      tg.appId,
      tg.secret,
      telegramText(chat, update, 'hi'),
    );
    expect(answer.status, answer.text).to.equal(200);
    const conversation = await waitFor(
      () =>
        t.schema
          .db('conversations')
          .where({ chat_id: String(chat) })
          .first('id'),
      { what: 'the conversation of the Telegram text' },
    );
    const sent = nock('https://telegram.example.test')
      .post(
        `/bot${TELEGRAM_TOKEN}/sendMessage`,
        (body: { chat_id: string }) => body.chat_id === String(chat),
      )
      .reply(200, { ok: true, result: { message_id: update } });
    await producer.publish(
      'channel',
      telegramChannelOut(tg, chat, [{ message_type: 'text', text: 'hello again' }], {
        conversationId: (conversation as { id: string }).id,
      }),
    );
    await waitFor(() => sent.isDone(), { what: 'sendMessage with the bot token' });
  }

  /** A WhatsApp message signed with the app secret (which must open to be checked). */
  async function whatsappSigned(): Promise<number> {
    const raw = JSON.stringify(
      whatsappPayload(NUMBER, [{ id: `wamid.${randomUUID()}`, body: 'hi' }]),
    );
    const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
    const answer = await call('POST', '/callback', {
      auth: false,
      raw,
      headers: { 'x-hub-signature-256': signature },
    });
    return answer.status;
  }

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ CREDENTIALS_KEY: OLD, LOG_LEVEL: 'warn' });
    tg = await createTelegramBot(t, { name: 'telegram shop' });
    const created = await call('POST', '/v2/bots', {
      body: {
        name: 'whatsapp shop',
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: NUMBER, access_token: 'wa-token', app_secret: APP_SECRET },
        },
      },
    });
    wa = { appId: created.json.app_id, channelId: created.json.channels[0].id };
    await t.api.close();
    // A value sealed before key ids existed: the same sealed value in the v1 form, naming no key.
    const row = await t.schema.db('channels').where({ id: wa.channelId }).first('credentials');
    const v1 = String(row.credentials).replace(/^v2\.[^.]+\./, 'v1.');
    await t.schema.db('channels').where({ id: wa.channelId }).update({ credentials: v1 });
    producer = new Producer({
      redis: t.redis,
      schemas: new SchemaRegistry(),
      prefix: t.prefix,
      maxLen: 10_000,
      partitions: t.config.stream.partitions,
    });
  });

  after(async () => {
    await stopAll();
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  it('when api and channel start with a key that opens no stored channel, then each exits 78 with BW_ERR_CREDENTIALS_KEY listing every channel and bot, and no stack', async () => {
    const env = envOf({ ...settings({ CREDENTIALS_KEY: NEW }), LOG_LEVEL: 'info' });
    const results = await Promise.all(
      (['api', 'channel'] as const).map((component) =>
        run('node', componentArgs(component), { env, timeoutMs: 60_000 }),
      ),
    );
    for (const result of results) {
      expect(result.code, result.stdout + result.stderr).to.equal(78);
      const fatal = result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>)
        .find((line) => line.code === 'BW_ERR_CREDENTIALS_KEY');
      expect(fatal, result.stdout).to.not.equal(undefined);
      const listed = (
        fatal!.channels as { channel_id: string; app_id: string; key_id: string | null }[]
      )
        .map((c) => [c.channel_id, c.app_id, c.key_id])
        .sort();
      expect(listed).to.deep.equal(
        [
          [tg.channelId, tg.appId, idOf(OLD)],
          [wa.channelId, wa.appId, null],
        ].sort(),
      );
      expect(fatal!.total).to.equal(2);
      expect(fatal!.configured_key_ids).to.deep.equal([idOf(NEW)]);
      expect(fatal!.remedy).to.be.a('string').and.contain('CREDENTIALS_KEY_PREVIOUS');
      expect(result.stdout + result.stderr).not.to.match(/\n\s+at /);
    }
  });

  it('when CREDENTIALS_KEY is the new key and CREDENTIALS_KEY_PREVIOUS the old one, then every bot works and new channels are sealed with the new key', async () => {
    const lines = await startWith({ CREDENTIALS_KEY: NEW, CREDENTIALS_KEY_PREVIOUS: OLD });
    await telegramRoundTrip();
    expect(await whatsappSigned()).to.equal(200);
    const created = await call('POST', '/v2/bots', {
      body: {
        name: 'new',
        channel: { type: 'whatsapp', details: { phone_number_id: '300400778', access_token: 'x' } },
      },
    });
    expect(created.status).to.equal(201);
    const row = await t.schema
      .db('channels')
      .where({ id: created.json.channels[0].id })
      .first('credentials');
    expect(String(row.credentials).startsWith(`v2.${idOf(NEW)}.`)).to.equal(true);
    expect(lines.join('\n')).not.to.contain('BW_ERR_CREDENTIALS_KEY');
  });

  it('when the rotation command runs, then it re-seals every channel with the new key, and running it again changes nothing', async () => {
    const keys = { CREDENTIALS_KEY: NEW, CREDENTIALS_KEY_PREVIOUS: OLD };
    const first = await rotate(keys);
    expect(first.code, first.stderr).to.equal(0);
    expect(JSON.parse(first.stdout)).to.deep.include({
      ok: true,
      key_id: idOf(NEW),
      reencrypted: 2,
      already_current: 1,
      failed: 0,
    });
    const rotated = await db.rows();
    expect(rotated).to.have.length(3);
    for (const row of rotated)
      expect(row.credentials.startsWith(`v2.${idOf(NEW)}.`)).to.equal(true);

    const second = await rotate(keys);
    expect(second.code, second.stderr).to.equal(0);
    expect(JSON.parse(second.stdout)).to.deep.include({
      reencrypted: 0,
      already_current: 3,
      failed: 0,
    });
    expect(await db.rows()).to.deep.equal(rotated);
  });

  it('when the previous key is removed after the rotation, then every bot still works', async () => {
    const lines = await startWith({ CREDENTIALS_KEY: NEW });
    await telegramRoundTrip();
    expect(await whatsappSigned()).to.equal(200);
    expect(lines.join('\n')).not.to.contain('BW_ERR_CREDENTIALS_KEY');
  });

  it('when one channel was sealed with a key not configured, then the edge starts and reports it, that bot alone is refused (callbacks 500, replies dead-lettered), and the rotation lists it as failed', async () => {
    const outsider = await new BotStore({
      db: t.schema.db,
      credentialsKey: Buffer.from(STRANGER, 'base64'),
    }).createBot({
      name: 'sealed elsewhere',
      flow: {},
      channel: { type: 'telegram', details: { bot_token: '42:other-token-aaaaaaaaaaaaaaaaaaaa' } },
    });
    const lines = await startWith({ CREDENTIALS_KEY: NEW });
    const reported = lines
      .map((line) => JSON.parse(line) as Record<string, any>)
      .find((line) => line.code === 'BW_ERR_CREDENTIALS_KEY');
    expect(reported?.channels.map((c: { channel_id: string }) => c.channel_id)).to.deep.equal([
      outsider.channels[0]!.id,
    ]);
    expect(reported?.channels[0].key_id).to.equal(idOf(STRANGER));

    const refused = await postTelegramUpdate(
      { call },
      outsider.appId,
      'any',
      telegramText(7, 7, 'hi'),
    );
    expect(refused.status).to.equal(500);
    expect(refused.json.error.code).to.equal('BW_ERR_CREDENTIALS_KEY');
    const shown = await call('GET', `/v2/bots/${outsider.appId}`);
    expect(shown.json.channels[0].credentials).to.equal('unreadable');
    await telegramRoundTrip();

    // Met at run time: a bot the edge had not loaded at start.
    const later = await new BotStore({
      db: t.schema.db,
      credentialsKey: Buffer.from(STRANGER, 'base64'),
    }).createBot({
      name: 'added later',
      flow: {},
      channel: {
        type: 'whatsapp',
        details: { phone_number_id: '300400999', access_token: 'y', app_secret: 'z' },
      },
    });
    // as the admin API does after a change: the edge's directory reloads the bot (asynchronously,
    // so the callback is sent until the bot is known: a refused callback publishes nothing)
    await t.redis.publish(`${t.prefix}:bots:changed`, later.appId);
    const late = await waitFor(
      async () => {
        const answer = await call('POST', '/callback', {
          auth: false,
          body: whatsappPayload('300400999', [{ id: 'wamid.late', body: 'hi' }]),
        });
        return answer.json.error?.code === 'BW_ERR_UNKNOWN_BOT' ? undefined : answer;
      },
      { what: 'the edge to know the bot added later' },
    );
    expect(late.json.error.code).to.equal('BW_ERR_CREDENTIALS_KEY');
    await waitFor(() =>
      lines.some(
        (line) => line.includes('BW_ERR_CREDENTIALS_KEY') && line.includes(later.channels[0]!.id),
      ),
    );
    expect(await whatsappSigned()).to.equal(200);
    // Its messaging limit is refused the same way: the details it would rewrite do not open, and
    // the row is left as it was.
    const laterChannel = later.channels[0]!.id;
    const sealed: unknown = await t.schema.db('channels').where({ id: laterChannel }).first();
    const limit = await call(
      'PUT',
      `/v2/bots/${later.appId}/channels/${laterChannel}/messaging-limit`,
      { body: { messaging_limit: 1000 } },
    );
    expect([limit.status, limit.json.error.code]).to.deep.equal([500, 'BW_ERR_CREDENTIALS_KEY']);
    expect(await t.schema.db('channels').where({ id: laterChannel }).first()).to.deep.equal(sealed);

    // A reply for that bot: retried, then dead-lettered naming the channel; channel keeps serving.
    const turnId = randomUUID();
    await producer.publish('channel', {
      source: 'test',
      turn_id: turnId,
      ordering_key: `${outsider.appId}:7`,
      intent: 'channel_out',
      bot_output: {
        conversation: {
          app_id: outsider.appId,
          channel_id: outsider.channels[0]!.id,
          channel_type: 'telegram',
          conversation_id: randomUUID(),
          chat_id: '7',
          user_pid: 'telegram:7',
          bot_language: 'en',
        },
        messages: [{ message_type: 'text', text: 'never sent' }],
      },
    });
    const letter = await waitFor(
      async () => {
        const letters = await listDeadLetters(
          t.redis,
          t.prefix,
          'channel',
          t.config.stream.partitions,
        );
        const letter = letters.find((l) => l.data.includes(turnId));
        return letter && { code: letter.code, reason: letter.reason };
      },
      { timeoutMs: 30_000, what: 'the dead letter of the reply' },
    );
    expect(letter.code).to.equal('BW_ERR_CREDENTIALS_KEY');
    expect(letter.reason).to.contain(outsider.channels[0]!.id);
    await telegramRoundTrip();

    const rotation = await rotate({ CREDENTIALS_KEY: NEW });
    expect(rotation.code).to.equal(1);
    const report = JSON.parse(rotation.stdout);
    expect(report).to.deep.include({ reencrypted: 0, already_current: 3, failed: 2 });
    expect(
      report.failed_channels.map((f: { channel_id: string }) => f.channel_id).sort(),
    ).to.deep.equal([outsider.channels[0]!.id, later.channels[0]!.id].sort());
  });
});
