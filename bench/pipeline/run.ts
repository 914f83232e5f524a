/**
 * The pipeline bench (`npm run bench:pipeline`): the api, channel, language and flow each in their
 * own processes, echo bots, many simulated Telegram users posting to the callback at a fixed rate,
 * and a stand-in Telegram API on loopback that times every reply; first the same users, load and
 * stand-in against a hand-written grammY bot (the baseline), and the two side by side. With
 * BENCH_SWEEP, a capacity sweep of both instead. Settings: ./options.ts and README.md.
 */
import { startPrivateCluster } from '../../test/support/private-cluster.ts';
import { startPrivateRedis } from '../../test/support/private-services.ts';
import { cleanUp, cleanups, runBench } from '../lib/setup.ts';
import { COMPONENTS, startBotwire } from './botwire.ts';
import { startFloor } from './floor.ts';
import { startGrammy } from './grammy.ts';
import { Load } from './load.ts';
import { options } from './options.ts';
import { measureTelegram, runPhase, waitDrained, type System } from './phase.ts';
import {
  printBaselineComparison,
  printComparison,
  printRedisComparison,
  printSweep,
  type RedisRun,
  type Summary,
} from './report.ts';
import { createVisitors, openStreams, webRequest } from './web.ts';

const REDIS_SETUPS = { single: 'single node', cluster: 'cluster' } as const;

/** One phase of Telegram users at `rate` (round 0: the users are introduced first). */
function measure(system: System, rate: number, round = 0, users = options.users): Promise<Summary> {
  return measureTelegram(system, {
    users,
    rate,
    round,
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
    graceSeconds: options.graceSeconds,
    connections: options.connections,
    latencyDump: options.latencyDump,
  });
}

async function main(): Promise<void> {
  if (options.sweep.length > 0) {
    await sweep();
    return;
  }
  let baseline: Summary | undefined;
  const botwire: { label: string; summary: Summary }[] = [];
  if (options.baseline === 'grammy' && options.channels.includes('telegram')) {
    baseline = await measure(await startGrammy(options), options.rate);
    // The baseline's process and database go before botwire starts, so they cost it nothing.
    await cleanUp();
    for (const kind of options.floors) {
      const summary = await measure(await startFloor(options, kind), options.rate);
      botwire.push({ label: summary.system, summary });
      await cleanUp();
    }
  }
  if (options.redisSetups.length === 0) {
    const summaries = await runPipeline(options.redisUrl);
    printComparison(summaries);
    for (const summary of summaries) botwire.push({ label: 'botwire', summary });
  } else {
    const runs: RedisRun[] = [];
    for (const setup of options.redisSetups) {
      const name = REDIS_SETUPS[setup];
      console.error(
        `bench: starting a private ${setup === 'single' ? 'redis-server' : 'Redis Cluster (3 masters, 3 replicas)'} on loopback`,
      );
      // Neither keeps an append-only file, as the development Redis: the comparison is of the
      // topology, not of persistence.
      const redis =
        setup === 'single'
          ? await startPrivateRedis({ persistence: 'none' })
          : await startPrivateCluster({ persistence: 'none' });
      cleanups.push({ what: `the private ${name}`, run: () => redis.close() });
      const summaries = await runPipeline(redis.url, name);
      printComparison(summaries);
      runs.push({ redis: name, summaries });
      for (const summary of summaries) botwire.push({ label: `botwire, ${name}`, summary });
      // Everything of this set-up goes (children, database, keys, its Redis) before the next starts.
      await cleanUp();
    }
    printRedisComparison(runs);
  }
  const telegram = botwire.filter(({ summary }) => summary.channel === 'telegram');
  if (baseline) printBaselineComparison(baseline, telegram);
}

/**
 * The whole bench on the Redis at `redisUrl`: a scratch database, the pipeline, one phase per
 * channel. `redisName` names the set-up in the reports (BENCH_REDIS).
 */
async function runPipeline(redisUrl: string, redisName?: string): Promise<Summary[]> {
  const { system, apiOrigin, webBots } = await startBotwire(
    options,
    redisUrl,
    redisName,
    options.channels,
  );
  const summaries: Summary[] = [];
  for (const channel of options.channels) {
    if (summaries.length > 0) await waitDrained(system.redis, system.prefix, COMPONENTS, 60_000);
    const latencyDump =
      options.latencyDump && options.channels.length > 1
        ? `${options.latencyDump}.${channel}`
        : options.latencyDump;
    if (channel === 'telegram') {
      summaries.push(await measure(system, options.rate));
      continue;
    }
    console.error(`bench: opening ${options.users} web visitor sessions and their event streams`);
    const visitors = await createVisitors(apiOrigin, webBots, options.users);
    const load = new Load({
      origin: system.origin,
      users: visitors,
      rate: options.rate,
      connections: options.connections,
      maxBacklog: Math.max(1000, options.rate * 10),
      request: webRequest,
    });
    const streams = await openStreams(apiOrigin, visitors, (sent) => load.onReply(sent));
    try {
      summaries.push(
        await runPhase({
          load,
          setup: {
            ...system.setup,
            channel,
            users: options.users,
            bots: options.bots,
            rate: options.rate,
            seconds: options.seconds,
            warmupSeconds: options.warmupSeconds,
            paceCeiling: Infinity,
          },
          graceSeconds: options.graceSeconds,
          probes: system,
          latencyDump,
        }),
      );
    } finally {
      // This phase's clients go before the next phase starts, so that they cost it nothing.
      streams.close();
      load.close();
    }
  }
  return summaries;
}

/**
 * BENCH_SWEEP: the grammY bot, the floors, then botwire, each started once and offered each rate in turn (a
 * phase each, on the same users) until the first rate it does not keep up with (a p99 over the
 * target alone goes on to the next rate: one stall can cost a window its p99). Bots and users are
 * raised to what channel's pacing needs at the highest rate (21 turns/s per bot, 0.5 per chat,
 * as at the default 525), so that the sweep measures the pipeline, not the pacing.
 */
async function sweep(): Promise<void> {
  const top = options.sweep[options.sweep.length - 1]!;
  const sized = {
    ...options,
    bots: Math.max(options.bots, Math.ceil(top / 21)),
    users: Math.max(options.users, 2 * top),
  };
  const results: Summary[] = [];
  const systems: [string, () => Promise<System>][] = [
    ['grammY', () => startGrammy(sized)],
    ...options.floors.map((kind): [string, () => Promise<System>] => [
      kind,
      () => startFloor(sized, kind),
    ]),
    [
      'botwire',
      async () => (await startBotwire(sized, options.redisUrl, undefined, ['telegram'])).system,
    ],
  ];
  for (const [name, start] of systems) {
    if (name === 'grammY' && options.baseline === 'none') continue;
    const system = await start();
    for (const [round, rate] of options.sweep.entries()) {
      if (round > 0) await waitDrained(system.redis, system.prefix, system.topics, 60_000);
      const summary = await measure(system, rate, round, sized.users);
      results.push(summary);
      if (summary.saturated) break;
    }
    await cleanUp();
  }
  printSweep(options.sweep, results);
}

await runBench(main);
