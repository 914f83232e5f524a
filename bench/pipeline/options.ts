/** The pipeline bench's settings, from the environment (README.md, "Settings"). */
import { BENCH_CONCURRENCY_DEFAULT, commonOptions, intEnv } from '../lib/setup.ts';
import type { Setup } from './report.ts';

/** The floors ./floor-bus.ts can run: its hops alone, or with the records of exactly-once. */
export type FloorKind = 'hops' | 'records';

/** A comma-separated list in env `name`, trimmed, empties dropped. */
function listEnv(name: string, fallback = ''): string[] {
  return (process.env[name] || fallback)
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export const options = {
  processes: intEnv('BENCH_PROCESSES', 1, 1),
  users: intEnv('BENCH_USERS', 1000, 1),
  bots: intEnv('BENCH_BOTS', 25, 1),
  rate: intEnv('BENCH_RATE', 525, 1),
  seconds: intEnv('BENCH_SECONDS', 20, 1),
  warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', 5, 0),
  graceSeconds: intEnv('BENCH_GRACE_SECONDS', 10, 1),
  connections: intEnv('BENCH_CONNECTIONS', 64, 1),
  concurrency: intEnv('BENCH_CONCURRENCY', BENCH_CONCURRENCY_DEFAULT, 1),
  poolMax: intEnv('BENCH_POOL_MAX', 10, 1),
  ...commonOptions(),
  // The bench configures no translation or speech provider, so with when_needed text skips the
  // language component (docs/pipeline.md); `always` measures the full five-hop pipeline.
  languageHop: process.env.BENCH_LANGUAGE_HOP || 'when_needed',
  lingerMs: intEnv('BENCH_LINGER_MS', 0, 0),
  maxBacklog: process.env.BENCH_MAX_BACKLOG ? intEnv('BENCH_MAX_BACKLOG', 1000, 0) : undefined,
  latencyDump: process.env.BENCH_LATENCY_DUMP || undefined,
  channels: listEnv('BENCH_CHANNELS', 'telegram') as Setup['channel'][],
  /** BENCH_REDIS: the Redis set-ups to run on one after the other; empty, BENCH_REDIS_URL alone. */
  redisSetups: listEnv('BENCH_REDIS') as ('single' | 'cluster')[],
  /** BENCH_BASELINE: `grammy` (the default) measures the hand-written grammY bot first; `none` not. */
  baseline: (process.env.BENCH_BASELINE || 'grammy') as 'grammy' | 'none',
  /**
   * BENCH_FLOOR: the design's floors (./floor-bus.ts) measured beside the grammY bot: `hops` (its
   * hops alone), `records` (with the records exactly-once needs); both by default, `none` neither.
   */
  floors: listEnv('BENCH_FLOOR', 'hops,records').filter((f) => f !== 'none') as FloorKind[],
  /** BENCH_SWEEP: offered rates, ascending, for a capacity sweep of both systems; empty, no sweep. */
  sweep: listEnv('BENCH_SWEEP').map(Number),
};

for (const channel of options.channels) {
  if (channel !== 'telegram' && channel !== 'web') {
    throw new Error(`BENCH_CHANNELS lists telegram and web (got ${String(channel)})`);
  }
}
if (!['always', 'when_needed'].includes(options.languageHop)) {
  throw new Error(`BENCH_LANGUAGE_HOP must be always or when_needed (got ${options.languageHop})`);
}
for (const setup of options.redisSetups) {
  if (setup !== 'single' && setup !== 'cluster') {
    throw new Error(`BENCH_REDIS lists single and cluster (got ${String(setup)})`);
  }
}
if (options.baseline !== 'grammy' && options.baseline !== 'none') {
  throw new Error(`BENCH_BASELINE must be grammy or none (got ${String(options.baseline)})`);
}
for (const floor of options.floors) {
  if (floor !== 'hops' && floor !== 'records') {
    throw new Error(`BENCH_FLOOR lists hops and records, or is none (got ${String(floor)})`);
  }
}
if (
  options.sweep.some(
    (rate, i) => !Number.isInteger(rate) || rate < 1 || rate <= (options.sweep[i - 1] ?? 0),
  )
) {
  throw new Error(`BENCH_SWEEP lists offered rates, ascending (got ${process.env.BENCH_SWEEP})`);
}
if (
  options.sweep.length > 0 &&
  (options.redisSetups.length > 0 || options.channels.join() !== 'telegram')
) {
  throw new Error(
    'BENCH_SWEEP runs Telegram users on BENCH_REDIS_URL: leave BENCH_REDIS and BENCH_CHANNELS unset',
  );
}

export type Options = typeof options;
