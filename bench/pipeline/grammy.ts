/**
 * The grammY baseline as the bench runs it (./grammy-bot.ts): a scratch database of its own (empty:
 * the session adapter makes its table), the stand-in Telegram API, and the bot process with
 * `options.bots` bots, each with its own token and webhook secret. The users, load generator,
 * stand-in and CPU accounting are those botwire is measured with.
 */
import { childEnv, startNode, stopChild, waitReady } from '../edge/processes.ts';
import { cleanups, compiledScript, ROOT } from '../lib/setup.ts';
import type { BotAddress } from './bots.ts';
import { openHandWritten } from './hand-written.ts';
import type { Options } from './options.ts';
import type { System } from './phase.ts';
import { benchGroup, childGroup, postgresGroup } from './probes.ts';

export async function startGrammy(options: Options): Promise<System> {
  // Redis is opened only for the bench's own counters: the bot uses none.
  const { prefix, dbName, databaseUrl, redis, adminDb, platform, bots, port, origin } =
    await openHandWritten(
      options,
      'bench-pipeline-baseline',
      ' for the grammY baseline',
      700_000_000,
    );
  const bot = startNode(
    'grammy',
    ROOT,
    compiledScript('bench/pipeline/grammy-bot.ts'),
    childEnv({
      BASELINE_BOTS: JSON.stringify(bots),
      BASELINE_PORT: String(port),
      DATABASE_URL: databaseUrl.toString(),
      DATABASE_POOL_MAX: String(options.poolMax),
      TELEGRAM_API_URL: platform.url,
    }),
    options.nodeArgs,
  );
  cleanups.push({ what: 'stop the grammY bot', run: () => stopChild(bot) });
  await waitReady(bot, `${origin}/healthz`);

  const addresses: BotAddress[] = bots.map(({ secret }, b) => ({ path: `/bot/${b}`, secret }));
  return {
    setup: { system: 'grammY', processes: 1, languageHop: '-' },
    origin: new URL(origin),
    platform,
    bots: addresses,
    paced: false,
    // No Redis row: the bot uses none, and the server's idle ticks would be noise.
    cpuGroups: [
      childGroup('grammY bot', [bot]),
      benchGroup,
      postgresGroup('postgres backends', dbName),
    ],
    topics: [],
    prefix,
    dbName,
    redis,
    adminDb,
  };
}
