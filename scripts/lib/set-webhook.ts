/**
 * The tool behind set-webhook.sh: registers the Telegram webhook of a bot's telegram channel, as
 * the admin route `POST /v2/bots/<app_id>/channels/<channel_id>/webhook` does, then tells running
 * edges the bot changed. Settings (DATABASE_URL, CREDENTIALS_KEY, TELEGRAM_API_URL,
 * PUBLIC_BASE_URL, REDIS_URL, STREAM_PREFIX) come from the environment and env file.
 *
 *   set-webhook.ts <app_id> [channel_id]
 *
 * Without a channel id, the bot's first telegram channel is used. Prints one JSON line: the
 * callback URL, when it was registered and Telegram's answer. The bot token is never printed.
 *
 * Exit codes: 0 registered, 2 bad usage, bad settings, unknown bot or channel, not a telegram
 * channel, credentials that do not open with the configured keys; 3 Telegram refused or could not
 * be reached, or Postgres could not be reached.
 */
import { ConfigError, loadConfig, type Config } from '../../src/config.ts';
import { registerTelegramWebhook } from '../../src/api/admin/telegram-webhook.ts';
import { BotStore } from '../../src/shared/bots/store.ts';
import { createDb, type Knex } from '../../src/shared/db.ts';
import { BotwireError } from '../../src/shared/errors.ts';
import { maskUrl } from '../../src/shared/logger.ts';
import { createRedis } from '../../src/shared/redis.ts';

const USAGE = 'usage: set-webhook.sh <app_id> [channel_id]';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Anything shaped like a Telegram bot token, blanked from messages we did not write. */
const BOT_TOKEN = /\d{1,20}:[A-Za-z0-9_-]{20,}/g;

class UsageError extends Error {}

/** Exit code of a failure, per the table in the header. */
function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError) return 2;
  if (!(error instanceof BotwireError)) return 1;
  switch (error.code) {
    case 'BW_ERR_UPSTREAM':
    case 'BW_ERR_UNAVAILABLE':
      return 3;
    default:
      return 2;
  }
}

function settings(): Config {
  const config = loadConfig(process.env);
  if (!config.credentialsKey) {
    throw new ConfigError('invalid configuration: CREDENTIALS_KEY is required by set-webhook');
  }
  return config;
}

/** The channel to register: the one named, else the bot's first telegram channel. */
async function channelIdFor(store: BotStore, appId: string, channelId?: string): Promise<string> {
  if (channelId !== undefined) {
    // Ids are UUIDs: anything else cannot exist and must not reach a uuid-typed query.
    if (!UUID.test(channelId)) {
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no channel with this id');
    }
    return channelId;
  }
  const bot = await store.getBot(appId);
  if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
  const channel = bot.channels.find((c) => c.type === 'telegram');
  if (!channel)
    throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'this bot has no telegram channel');
  return channel.id;
}

/**
 * Runs `work`, then closes the pool. Like the edge, a driver error meaning Postgres is out of reach
 * becomes BW_ERR_UNAVAILABLE. Credentials that do not open with CREDENTIALS_KEY or
 * CREDENTIALS_KEY_PREVIOUS come as BW_ERR_CREDENTIALS_KEY, naming the channel.
 */
async function withDatabase<T>(config: Config, db: Knex, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BotwireError) throw error;
    const code = (error as { code?: unknown }).code;
    const message = (error as { message?: unknown }).message;
    if (
      (typeof code === 'string' &&
        /^(ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|57P0|3D000)/.test(code)) ||
      (typeof message === 'string' && /Timeout acquiring a connection/.test(message))
    ) {
      throw new BotwireError(
        'BW_ERR_UNAVAILABLE',
        `cannot reach Postgres at ${maskUrl(config.databaseUrl)} (${typeof code === 'string' ? code : 'timeout'})`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    await db.destroy().catch(() => undefined);
  }
}

/**
 * Tells running edges to reload the bot. A failure only warns: the webhook is registered, and
 * every edge reloads all bots every minute anyway.
 */
async function notifyEdges(config: Config, appId: string): Promise<void> {
  const redis = createRedis(config.redisUrl, {
    tlsCaFile: config.redisTlsCa,
    name: 'botwire-cli',
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined); // reported below, once
  try {
    await redis.connect();
    await redis.publish(`${config.stream.prefix}:bots:changed`, appId);
  } catch (error) {
    console.error(
      `warning: the webhook is registered, but running edges were not told (Redis at ${maskUrl(config.redisUrl)}: ${(error as Error).message}); they reload every bot within a minute`,
    );
  } finally {
    redis.disconnect();
  }
}

async function main(argv: string[]): Promise<void> {
  const [appId, channelArg, ...extra] = argv;
  if (!appId || appId.startsWith('-') || extra.length > 0) {
    throw new UsageError(appId ? 'too many arguments' : 'an app id is required');
  }
  const config = settings();
  if (!UUID.test(appId)) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
  const db = createDb(config.databaseUrl, { poolMax: 2 });
  const store = new BotStore({
    db,
    credentialsKey: config.credentialsKey!,
    previousCredentialsKeys: config.previousCredentialsKeys,
  });
  const result = await withDatabase(config, db, async () => {
    const channelId = await channelIdFor(store, appId, channelArg);
    const registered = await registerTelegramWebhook(
      {
        store,
        fetch,
        telegramApiUrl: config.providers.telegramApiUrl,
        publicBaseUrl: config.api.publicBaseUrl,
      },
      appId,
      channelId,
    );
    return { ok: true, app_id: appId, channel_id: channelId, ...registered };
  });
  await notifyEdges(config, appId);
  console.log(JSON.stringify(result));
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const code = exitCodeOf(error);
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}\n${USAGE}`);
    } else if (error instanceof BotwireError) {
      console.error(`error: ${error.code}: ${error.message}`);
    } else if (error instanceof ConfigError) {
      console.error(`error: BW_ERR_CONFIG: ${error.message}`);
    } else {
      // Not ours: its text may quote a request, so anything token-shaped is blanked.
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      console.error(`error: BW_ERR_INTERNAL: ${text.replace(BOT_TOKEN, '[redacted]')}`);
    }
    process.exit(code);
  },
);
