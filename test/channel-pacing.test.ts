import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { Pacer } from '../src/channel/pacing.ts';
import { createRedis } from '../src/shared/redis.ts';
import { connectRedis, dropPrefix, REDIS_URL, uniquePrefix } from './support/services.ts';

describe('channel pacing (one script reserves every key of a call)', () => {
  let redis: Redis;
  let pacer: Pacer;
  const prefix = uniquePrefix();
  const chat = { intervalMs: 1000, burst: 3 };
  const bot = { intervalMs: 34, burst: 30 };

  before(() => {
    redis = connectRedis();
    pacer = new Pacer(redis);
  });

  after(async () => {
    await dropPrefix(redis, prefix);
    await redis.quit();
  });

  it('when a chat has used its burst, then the next send waits about one interval, even though the bot has room', async () => {
    const keys: [string, typeof chat][] = [
      [`${prefix}:pace:{tg:c1}`, bot],
      [`${prefix}:pace:{tg:c1}:42`, chat],
    ];
    const waits: number[] = [];
    for (let i = 0; i < 4; i += 1) waits.push(await pacer.reserve(keys));
    expect(waits.slice(0, 3)).to.deep.equal([0, 0, 0]);
    expect(waits[3]).to.be.within(500, 1000);
  });

  it('when another chat of the same bot sends, then it does not wait for the first chat', async () => {
    const wait = await pacer.reserve([
      [`${prefix}:pace:{tg:c1}`, bot],
      [`${prefix}:pace:{tg:c1}:43`, chat],
    ]);
    expect(wait).to.equal(0);
  });

  it('when a slot is reserved, then the script goes by its SHA1, not as text with every call', async () => {
    const keys: [string, typeof chat][] = [
      [`${prefix}:pace:{tg:c2}`, bot],
      [`${prefix}:pace:{tg:c2}:44`, chat],
    ];
    await pacer.reserve(keys); // loads the script if this server does not hold it yet
    const monitor = await redis.monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // The script's own GET and SET are reported too, from "lua".
      if (source !== 'lua' && args.includes(keys[0]![0])) seen.push(String(args[0]).toLowerCase());
    });
    await pacer.reserve(keys);
    await pacer.reserve(keys);
    await redis.ping(); // MONITOR reports a command before its reply, so both are in by now
    monitor.disconnect();
    expect(seen).to.deep.equal(['evalsha', 'evalsha']);
  });

  it('when the connection auto-pipelines and a reservation joins a pipeline other commands are filling, then it still goes', async () => {
    // As channel's connection: the commands of one tick leave as one pipeline, which holds the
    // scripts defined when it was made; the Pacer is made first, as the worker makes it.
    const piped = createRedis(REDIS_URL, { name: 'botwire-test', enableAutoPipelining: true });
    try {
      const ownPacer = new Pacer(piped);
      await piped.ping();
      const [, wait] = await Promise.all([
        piped.get(`${prefix}:other`),
        ownPacer.reserve([[`${prefix}:pace:{tg:c3}`, bot]]),
      ]);
      expect(wait).to.equal(0);
    } finally {
      piped.disconnect();
    }
  });
});
