import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { reserve } from '../src/channel/pacing.ts';
import { connectRedis, dropPrefix, uniquePrefix } from './support/services.ts';

describe('channel pacing (one script reserves every key of a call)', () => {
  let redis: Redis;
  const prefix = uniquePrefix();
  const chat = { intervalMs: 1000, burst: 3 };
  const bot = { intervalMs: 34, burst: 30 };

  before(() => {
    redis = connectRedis();
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
    for (let i = 0; i < 4; i += 1) waits.push(await reserve(redis, keys));
    expect(waits.slice(0, 3)).to.deep.equal([0, 0, 0]);
    expect(waits[3]).to.be.within(500, 1000);
  });

  it('when another chat of the same bot sends, then it does not wait for the first chat', async () => {
    const wait = await reserve(redis, [
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
    await reserve(redis, keys); // loads the script if this server does not hold it yet
    const monitor = await redis.monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // The script's own GET and SET are reported too, from "lua".
      if (source !== 'lua' && args.includes(keys[0]![0])) seen.push(String(args[0]).toLowerCase());
    });
    await reserve(redis, keys);
    await reserve(redis, keys);
    await redis.ping(); // MONITOR reports a command before its reply, so both are in by now
    monitor.disconnect();
    expect(seen).to.deep.equal(['evalsha', 'evalsha']);
  });
});
