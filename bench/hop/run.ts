/**
 * What one consumer hop costs in CPU per message, ours against the least ioredis can do for the
 * same effect (read, forward one message, acknowledge), at several rates. See README.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Producer } from '../../src/shared/bus/producer.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';
import {
  BENCH_PARTITIONS,
  cleanups,
  commonOptions,
  deleteKeys,
  intEnv,
  ROOT,
  runBench,
} from '../lib/setup.ts';
import { median } from '../lib/stats.ts';
import { childEnv } from '../edge/processes.ts';
import { channelIn, type HopReport } from './messages.ts';

const VARIANTS = ['botwire', 'raw'] as const;
type Variant = (typeof VARIANTS)[number];

function rates(): number[] {
  const raw = process.env.BENCH_RATES || '500,1000,4000';
  const list = raw.split(',').map(Number);
  if (list.some((r) => !Number.isInteger(r) || r < 1)) {
    throw new Error(`BENCH_RATES must be positive integers separated by commas (got ${raw})`);
  }
  return list;
}

/** Starts the consumer, feeds it `count` messages at `rate`, and returns what it reports. */
async function measure(
  variant: Variant,
  rate: number,
  count: number,
  options: { redis: Redis; redisUrl: string; nodeArgs: string[] },
): Promise<HopReport> {
  const prefix = `bwbench-${randomBytes(4).toString('hex')}`;
  const clean = { what: `keys ${prefix}:*`, run: () => deleteKeys(options.redis, `${prefix}:*`) };
  cleanups.push(clean);
  const child = spawn(
    process.execPath,
    [
      ...options.nodeArgs,
      '--import',
      'tsx',
      'bench/hop/consumer.ts',
      variant,
      prefix,
      String(count),
    ],
    {
      cwd: ROOT,
      env: childEnv({ BENCH_REDIS_URL: options.redisUrl }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const kill = { what: `${variant} consumer`, run: () => Promise.resolve(child.kill()) };
  cleanups.push(kill);
  // The child reports twice, in order: ready, then its figures once the feed is done. A consumer
  // that exits or stops answering (a message lost, a stuck start) fails the run, not hangs it.
  const exit = once(child, 'exit');
  const exited = exit.then(([code]) => {
    throw new Error(`the ${variant} consumer exited with ${code}`);
  });
  const deadline = AbortSignal.timeout((count / rate) * 3000 + 30_000);
  const next = async (): Promise<unknown> =>
    (await Promise.race([once(child, 'message', { signal: deadline }), exited]))[0];
  await next(); // ready

  // The feeder publishes as the edge does: one message per call, open-loop at the rate.
  const producer = new Producer({
    redis: options.redis,
    schemas: new SchemaRegistry(),
    prefix,
    maxLen: count * 2,
    partitions: BENCH_PARTITIONS,
  });
  let failed: Error | undefined;
  const started = performance.now();
  for (let i = 0; i < count && failed === undefined; i++) {
    producer
      .publish('channel', channelIn(i, randomUUID()))
      .catch(
        (error: unknown) => (failed ??= error instanceof Error ? error : new Error(String(error))),
      );
    const ahead = (i / rate) * 1000 - (performance.now() - started);
    if (ahead > 1) await new Promise((resolve) => setTimeout(resolve, ahead));
  }
  if (failed !== undefined) throw failed;
  const report = (await next()) as HopReport;
  await exit;
  cleanups.splice(cleanups.indexOf(kill), 1);
  await clean.run();
  cleanups.splice(cleanups.indexOf(clean), 1);
  return report;
}

await runBench(async () => {
  const options = commonOptions();
  const seconds = intEnv('BENCH_SECONDS', 10, 1);
  const rounds = intEnv('BENCH_ROUNDS', 1, 1);
  const redis = new Redis(options.redisUrl, {
    connectionName: 'bench-hop',
    enableAutoPipelining: true,
  });
  cleanups.push({ what: 'redis', run: () => redis.quit() });

  const rateList = rates();
  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const rate of rateList) {
      // Alternate which variant goes first, so a drift of the machine does not favour one.
      const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const variant of order) {
        const count = rate * seconds;
        console.error(`bench: round ${round + 1}, ${variant}, ${count} messages at ${rate}/s`);
        const report = await measure(variant, rate, count, { redis, ...options });
        const key = `${variant}@${rate}`;
        results.set(key, [...(results.get(key) ?? []), report.cpuUs / count]);
      }
    }
  }

  console.log(
    `\none consumer hop: read from channel, publish one message to flow, acknowledge; ${seconds} s per rate, ` +
      `median of ${rounds} round(s)\n`,
  );
  console.log('msgs/s   botwire µs/msg   raw ioredis µs/msg   botwire / raw');
  for (const rate of rateList) {
    const ours = median(results.get(`botwire@${rate}`)!);
    const floor = median(results.get(`raw@${rate}`)!);
    console.log(
      `${String(rate).padEnd(9)}${ours.toFixed(0).padStart(14)}${floor.toFixed(0).padStart(21)}` +
        `${(ours / floor).toFixed(2).padStart(16)}`,
    );
  }
});
