import { expect } from 'chai';
import { Pacer, PACING_SCRIPTS } from '../src/channel/pacing.ts';
import { createRedis, type RedisNode } from '../src/shared/redis.ts';
import { connectRedis, dropPrefix, REDIS_URL, uniquePrefix } from './support/services.ts';

/**
 * A connection as channel makes it: the pacing script defined with it. The test Redis is one
 * server (a test below reads what the connection writes, which a cluster spreads over nodes).
 */
const pacingRedis = (autoPipelining = false): RedisNode =>
  createRedis(REDIS_URL, {
    name: 'botwire-test',
    scripts: PACING_SCRIPTS,
    enableAutoPipelining: autoPipelining,
  }) as RedisNode;

describe('channel pacing (one script reserves every key of a call)', () => {
  let redis: RedisNode;
  let pacer: Pacer;
  const prefix = uniquePrefix();
  const chat = { intervalMs: 1000, burst: 3 };
  const bot = { intervalMs: 34, burst: 30 };

  before(() => {
    redis = pacingRedis();
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

  it('when a broadcast takes what replies leave, then it gets a slot only while none is owed, and replies after it never wait', async () => {
    const number = { intervalMs: 100, burst: 10 };
    const key: [string, typeof number][] = [[`${prefix}:pace:wa:leftover`, number]];
    // Replies use part of the burst: the broadcast gets nothing until the pace has caught up.
    for (let i = 0; i < 3; i += 1) expect(await pacer.reserve(key)).to.equal(0);
    const owed = await pacer.reserveLeftover(key);
    expect(owed).to.be.within(150, 300);
    await new Promise((resolve) => setTimeout(resolve, owed));
    // Now one slot, then nothing until the next interval: never a burst.
    expect(await pacer.reserveLeftover(key)).to.equal(0);
    const next = await pacer.reserveLeftover(key);
    expect(next).to.be.within(1, 100);
    // However often the broadcast asked, a reply finds its burst's room.
    for (let i = 0; i < 9; i += 1) expect(await pacer.reserve(key)).to.equal(0);
  });

  it('when a slot is reserved, then the script goes by its SHA1, not as text with every call', async () => {
    const keys: [string, typeof chat][] = [
      [`${prefix}:pace:{tg:c2}`, bot],
      [`${prefix}:pace:{tg:c2}:44`, chat],
    ];
    await pacer.reserve(keys); // loads the script if this server does not hold it yet
    // What this connection writes to Redis, read off its command queue (not MONITOR: the shared
    // browser-test service keeps the server busy, and ioredis's monitor mode loses track under it).
    const seen: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      if (command.args.some((a) => String(a) === keys[0]![0])) seen.push(command.name);
      return send(command, stream);
    };
    try {
      await pacer.reserve(keys);
      await pacer.reserve(keys);
    } finally {
      redis.sendCommand = send;
    }
    expect(seen).to.deep.equal(['evalsha', 'evalsha']);
  });

  it('when the connection auto-pipelines and a reservation joins a pipeline other commands opened first, then it still goes', async () => {
    // The order that stopped channel when the script was defined on first use: the pipeline of
    // this tick is made by the GET, before anything pacing does.
    const piped = pacingRedis(true);
    try {
      await piped.ping();
      const other = piped.get(`${prefix}:other`);
      const wait = new Pacer(piped).reserve([[`${prefix}:pace:{tg:c3}`, bot]]);
      expect(await Promise.all([other, wait])).to.deep.equal([null, 0]);
    } finally {
      piped.disconnect();
    }
  });

  it('when the connection was made without the pacing script, then the Pacer refuses it at once', () => {
    const plain = connectRedis();
    try {
      expect(() => new Pacer(plain)).to.throw('PACING_SCRIPTS');
    } finally {
      plain.disconnect();
    }
  });
});
