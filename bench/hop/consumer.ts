/**
 * One consumer hop, started by `run.ts` in a process of its own: reads the `channel` topic of
 * `prefix` and, for each message, publishes one message to `flow` and acknowledges, until it has
 * handled `count`. `botwire` is our consumer (`consume` in `src/shared/worker-kit.ts`: leases,
 * schema checks on both sides, keyed order, retries); `raw` is the least ioredis can do for the
 * same effect: XREADGROUP, JSON.parse, XADD, then XACK once the XADD is in. It reports to its
 * parent over IPC: `ready` once reading, then the CPU it spent from the first message to the last.
 */
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { topicKeys } from '../../src/shared/bus/topics.ts';
import { consume, createKit } from '../../src/shared/worker-kit.ts';
import {
  BENCH_CONCURRENCY_DEFAULT,
  BENCH_CONSUMER_SETTINGS,
  BENCH_PARTITIONS,
} from '../lib/setup.ts';
import { flowMessage, type HopReport } from './messages.ts';

const [variant, prefix, countArg] = process.argv.slice(2);
const count = Number(countArg);
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

let handled = 0;
let started: NodeJS.CpuUsage | undefined;
let finish: () => void = () => undefined;
const finished = new Promise<void>((resolve) => (finish = resolve));
/** Counts a handled message; the clock starts at the first. */
const tally = (): void => {
  if (handled === 0) started = process.cpuUsage();
  handled += 1;
  if (handled === count) finish();
};

async function botwire(): Promise<() => Promise<void>> {
  const config = loadConfig(
    {
      REDIS_URL: redisUrl,
      STREAM_PREFIX: prefix!,
      ...BENCH_CONSUMER_SETTINGS,
      CONSUMER_CONCURRENCY: String(BENCH_CONCURRENCY_DEFAULT),
      LOG_LEVEL: 'warn',
    },
    'hop',
  );
  const logger = createLogger({ component: 'hop', level: 'warn' });
  const kit = createKit(config, logger, { name: 'hop' });
  const service = await consume<{ turn_id: string; ordering_key: string }>(
    kit,
    'channel',
    (message) => {
      tally();
      return Promise.resolve([{ topic: 'flow' as const, message: flowMessage(message) }]);
    },
  );
  return () => service.close();
}

async function raw(): Promise<() => Promise<void>> {
  const streams = topicKeys(prefix!, 'channel', BENCH_PARTITIONS).partitions;
  const out = topicKeys(prefix!, 'flow', BENCH_PARTITIONS).partitions;
  const blocking = new Redis(redisUrl);
  const commands = new Redis(redisUrl, { enableAutoPipelining: true });
  for (const stream of streams) {
    await blocking.xgroup('CREATE', stream, 'raw', '$', 'MKSTREAM').catch(() => undefined);
  }
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const reply = (await blocking.xreadgroup(
        'GROUP',
        'raw',
        'raw',
        'COUNT',
        64,
        'BLOCK',
        200,
        'STREAMS',
        ...streams,
        ...streams.map(() => '>'),
      )) as [string, [string, string[]][]][] | null;
      for (const [stream, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          void (async () => {
            const message = JSON.parse(fields[1]!) as { turn_id: string; ordering_key: string };
            const target = out[streams.indexOf(stream)]!;
            await commands.xadd(target, '*', 'data', JSON.stringify(flowMessage(message)));
            await commands.xack(stream, 'raw', id);
            tally();
          })();
        }
      }
    }
  })();
  return async () => {
    stop = true;
    await loop;
    await Promise.all([blocking.quit(), commands.quit()]);
  };
}

const close = variant === 'raw' ? await raw() : await botwire();
// The bench went away (it failed or was killed): do not wait for messages that will not come.
process.on('disconnect', () => process.exit(1));
process.send!({ ready: true });
await finished;
const cpu = process.cpuUsage(started);
const report: HopReport = { cpuUs: cpu.user + cpu.system };
await close();
process.send!(report, () => process.exit(0));
