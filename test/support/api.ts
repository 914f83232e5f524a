/**
 * Starts the real edge in-process on a free port, against real Redis (own stream prefix) and real
 * Postgres (own migrated schema), and collects its log lines.
 */
// nock first: it patches node:http when loaded, and the components imported below take
// `request` from node:http as they load (channel's json-post.ts); loaded later, nock misses them.
import nock from 'nock';
import { randomBytes, randomUUID } from 'node:crypto';
import { capturingLogger } from './logs.ts';
import type { PlatformStub } from './platform-stub.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { startApi, type RunningApi } from '../../src/api/worker.ts';
import type { Kdf } from '../../src/api/admin/passwords.ts';
import { startChannel } from '../../src/channel/worker.ts';
import { startFlow } from '../../src/flow/worker.ts';
import { startLanguage } from '../../src/language/worker.ts';
import type { Service } from '../../src/shared/process.ts';
import { createLogger } from '../../src/shared/logger.ts';
import type { Topic } from '../../src/shared/bus/topics.ts';
import type { Redis } from '../../src/shared/redis.ts';
import {
  connectRedis,
  createTestSchema,
  topicEntries,
  dropPrefix,
  REDIS_URL,
  uniquePrefix,
  urlWithSchema,
  type TestSchema,
} from './services.ts';

export interface TestApi {
  /** The settings the edge runs with; start other components with the same. */
  config: Config;
  /** The same settings as environment variables, for component processes. */
  env: Record<string, string>;
  url: string;
  adminKey: string;
  prefix: string;
  redis: Redis;
  schema: TestSchema;
  api: RunningApi;
  logs: string[];
  /** {@link callEdge} against this edge. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  stop(): Promise<void>;
}

/**
 * What helpers that only call the edge need of it: its URL and {@link callEdge} with the admin
 * key. A {@link TestApi} is one, and so is the api process of a fault system (`system.edge`).
 */
export type EdgeClient = Pick<TestApi, 'url' | 'call'>;

/** What {@link callEdge} sends besides the method and path. */
export interface CallOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is (with `content-type: application/json` unless `headers` name one). */
  raw?: string;
  headers?: Record<string, string>;
  /** `false`: no admin key. @defaultValue true */
  auth?: boolean;
}

/** An edge's answer: `json` is the parsed body, `undefined` where it is not JSON. */
export interface CallResult {
  status: number;
  json: any;
  text: string;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
}

/**
 * fetch against the edge at `url` (`http://127.0.0.1:<port>`); JSON bodies are serialised, the
 * admin key is sent unless `auth: false` or `headers` carry an authorization of their own.
 */
export async function callEdge(
  url: string,
  adminKey: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== false) headers.authorization ??= `Bearer ${adminKey}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: Object.fromEntries(response.headers) };
}

export { urlWithSchema } from './services.ts';

/**
 * @param overrides settings over the test defaults.
 * @param options.consoleDir the console build the edge serves (a fixture folder in tests of
 *   serving). @defaultValue console/dist
 */
export async function startTestApi(
  overrides: Record<string, string> = {},
  options: { consoleDir?: string; kdf?: Kdf } = {},
): Promise<TestApi> {
  const schema = await createTestSchema();
  const prefix = uniquePrefix();
  const adminKey = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    REDIS_URL,
    DATABASE_URL: urlWithSchema(schema.schema),
    STREAM_PREFIX: prefix,
    API_PORT: '0',
    API_HOST: '127.0.0.1',
    ADMIN_API_KEY: adminKey,
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    PUBLIC_BASE_URL: 'https://bots.example.test',
    TELEGRAM_API_URL: 'https://telegram.example.test',
    WHATSAPP_API_URL: 'https://graph.example.test/v21.0',
    CONSUMER_LEASE_MS: '600',
    CONSUMER_BLOCK_MS: '100',
    CONSUMER_RETRY_BASE_MS: '50',
    LOG_LEVEL: 'debug',
    // Suites send many wrong keys from one address on purpose; the limit has its own test.
    ADMIN_AUTH_MAX_FAILURES: '1000000',
    // Words only: the embedded model costs tens of milliseconds of CPU a chunk, which the suites
    // indexing thousands of chunks do not need; the tests of meaning choose `local` or `api`.
    EMBEDDINGS_PROVIDER: 'none',
    ...overrides,
  };
  const config = loadConfig(env, 'api');
  const { logger, lines: logs } = capturingLogger({ component: 'api', level: 'debug' });
  const api = await startApi(config, logger, options);
  const url = `http://127.0.0.1:${api.port}`;
  const redis = connectRedis(env.REDIS_URL);
  return {
    config,
    env,
    url,
    adminKey,
    prefix,
    redis,
    schema,
    api,
    logs,
    call: (method, path, options) => callEdge(url, adminKey, method, path, options),
    async stop() {
      await api.close();
      await dropPrefix(redis, prefix);
      redis.disconnect();
      await schema.drop();
    },
  };
}

/** Entries of a topic stream, decoded. */
export async function topicMessages(redis: Redis, prefix: string, topic: Topic): Promise<any[]> {
  return (await topicEntries(redis, prefix, topic)).map(({ data }) => JSON.parse(data) as unknown);
}

export const TELEGRAM_TOKEN = '123456789:AAExampleTokenForTests_abcdefghijk';

/**
 * A WhatsApp Cloud API callback body for `phoneNumberId` holding `value` (merged over a valid
 * change value). `entryId`, `displayNumber` and `contacts` replace the defaults when given.
 */
export function whatsappChange(
  phoneNumberId: string,
  value: Record<string, unknown> = {},
  options: { entryId?: string; displayNumber?: string; contacts?: unknown[] } = {},
): Record<string, any> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: options.entryId ?? 'WHATSAPP_BUSINESS_ACCOUNT_ID',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: options.displayNumber ?? '15550001111',
                phone_number_id: phoneNumberId,
              },
              contacts: options.contacts ?? [{ profile: { name: 'Ana' }, wa_id: '15550002222' }],
              ...value,
            },
          },
        ],
      },
    ],
  };
}

export function whatsappPayload(
  phoneNumberId: string,
  messages: { id: string; body: string; from?: string }[],
): Record<string, unknown> {
  return whatsappChange(phoneNumberId, {
    messages: messages.map((m) => ({
      from: m.from ?? '15550002222',
      id: m.id,
      timestamp: '1700000000',
      type: 'text',
      text: { body: m.body },
    })),
  });
}

/** Posts a Telegram update to the edge's callback for `appId` with the webhook `secret`. */
export function postTelegramUpdate(
  t: Pick<TestApi, 'call'>,
  appId: string,
  secret: string,
  update: unknown,
): ReturnType<TestApi['call']> {
  return t.call('POST', `/v2/callback/telegram/${appId}`, {
    auth: false,
    headers: { 'x-telegram-bot-api-secret-token': secret },
    body: update,
  });
}

/**
 * A Telegram update holding a private text from `chat` (message_id = update_id = `update`);
 * `from` adds fields to the sender.
 */
export function telegramText(
  chat: number,
  update: number,
  text: string,
  from: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    update_id: update,
    message: {
      message_id: update,
      date: 1,
      chat: { id: chat, type: 'private' },
      from: { id: chat, ...from },
      text,
    },
  };
}

/**
 * A `channel_out` message of the topic `channel`: `messages` for the Telegram bot `bot` to send to
 * the private chat `chat`, in the conversation `conversationId` (none by default).
 */
export function telegramChannelOut(
  bot: { appId: string; channelId: string },
  chat: number,
  messages: unknown[],
  { conversationId = '', turnId = randomUUID() } = {},
) {
  return {
    source: 'test',
    turn_id: turnId,
    ordering_key: `${bot.appId}:${chat}`,
    intent: 'channel_out',
    bot_output: {
      conversation: {
        app_id: bot.appId,
        channel_id: bot.channelId,
        channel_type: 'telegram',
        conversation_id: conversationId,
        chat_id: String(chat),
        user_pid: `telegram:${chat}`,
        bot_language: 'en',
      },
      messages,
    },
  };
}

/** A Telegram update: `chat` pressed the button `data` (query `id`) under its message `messageId`. */
export function telegramPress(
  chat: number,
  update: number,
  id: string,
  data: string,
  messageId: number,
): Record<string, unknown> {
  return {
    update_id: update,
    callback_query: {
      id,
      from: { id: chat },
      data,
      message: { message_id: messageId, date: 1, chat: { id: chat, type: 'private' } },
    },
  };
}

/** Starts channel, language and flow in this process, as the edge `t` is configured, logging nothing. */
export async function startConversationComponents(t: TestApi): Promise<Service[]> {
  const logger = createLogger({ component: 'test', level: 'silent' });
  return [
    await startChannel(t.config, logger),
    await startLanguage(t.config, logger),
    await startFlow(t.config, logger),
  ];
}

/**
 * The hooks of a suite that talks to bots end to end in this process, every outside service on
 * nock: before all, nock lets only loopback through, the edge starts with `env` and `setup` runs
 * (it makes the bots and starts the components, and returns them); after all, those components
 * close, nock is reset and the edge stops.
 */
export function conversationSuite(
  env: Record<string, string>,
  setup: (t: TestApi) => Promise<Service[]>,
): void {
  let edge: TestApi | undefined;
  const services: Service[] = [];
  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    edge = await startTestApi(env);
    services.push(...(await setup(edge)));
  });
  after(async () => {
    for (const service of services) await service.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await edge?.stop();
  });
}

/** Answers every Telegram sendMessage (nock, persisting) and pushes each message's text to `sent`. */
export function captureTelegramTexts(sent: string[]): nock.Scope {
  return nock('https://telegram.example.test')
    .persist()
    .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
    .reply((_uri, body) => {
      sent.push(String((body as { text: string }).text));
      return [200, { ok: true, result: { message_id: sent.length } }];
    });
}

/** A Telegram bot created through the admin API, with the webhook secret Telegram was given. */
export interface TelegramTestBot {
  appId: string;
  channelId: string;
  secret: string;
  /** The admin API's answer to the creation. */
  created: any;
}

/**
 * Creates a Telegram bot (with `flow` when given) and registers its webhook against the nock
 * stand-in for TELEGRAM_API_URL, learning the secret token the way Telegram does.
 */
export async function createTelegramBot(
  t: TestApi,
  options: { name?: string; flow?: unknown } = {},
): Promise<TelegramTestBot> {
  const created = await t.call('POST', '/v2/bots', {
    body: {
      name: options.name ?? 'telegram bot',
      ...(options.flow === undefined ? {} : { flow: options.flow }),
      channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
    },
  });
  if (created.status !== 201) throw new Error(`bot not created: ${created.text}`);
  let secret = '';
  nock(t.config.providers.telegramApiUrl)
    .post(`/bot${TELEGRAM_TOKEN}/setWebhook`, (form: Record<string, string>) => {
      secret = form.secret_token ?? '';
      return true;
    })
    .reply(200, { ok: true, result: true, description: 'Webhook was set' });
  const appId: string = created.json.app_id;
  const channelId: string = created.json.channels[0].id;
  const registered = await t.call('POST', `/v2/bots/${appId}/channels/${channelId}/webhook`);
  if (registered.status !== 200) throw new Error(`webhook not registered: ${registered.text}`);
  return { appId, channelId, secret, created: created.json };
}

/**
 * Creates a Telegram bot with `flow` whose platform is the stand-in `stub` (the edge's
 * TELEGRAM_API_URL) and registers its webhook; its app id, and the secret token the stand-in got.
 */
export async function createStubTelegramBot(
  t: Pick<TestApi, 'call'>,
  stub: Pick<PlatformStub, 'calls'>,
  name: string,
  flow: unknown,
): Promise<{ appId: string; secret: string }> {
  const created = await t.call('POST', '/v2/bots', {
    body: { name, flow, channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
  });
  if (created.status !== 201) throw new Error(`bot not created: ${created.text}`);
  const appId: string = created.json.app_id;
  await t.call('POST', `/v2/bots/${appId}/channels/${created.json.channels[0].id}/webhook`);
  const hook = stub.calls.find(
    (c) => c.method === 'setWebhook' && String(c.body.url).endsWith(`/${appId}`),
  );
  return { appId, secret: String(hook?.body.secret_token) };
}
