/**
 * The web event hub alone, against real Redis: on a single server (one blocking reader loop over
 * many visitors' streams) and on the private cluster (appends announced by sharded pub/sub, read
 * per stream, with a sweep for lost announcements).
 */
import { expect } from 'chai';
import type { PassThrough } from 'node:stream';
import { VisitorHub, type StreamOwner } from '../../src/api/web/visitor-hub.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { createRedis, isCluster, mastersOf, type Redis } from '../../src/shared/redis.ts';
import {
  appendedChannel,
  VisitorStreams,
  visitorStreamKey,
  WEB_SCRIPTS,
} from '../../src/shared/web/visitor-stream.ts';
import { forEachRedisMode } from '../support/redis-modes.ts';
import { dropPrefix, uniquePrefix, waitFor } from '../support/services.ts';

/** The texts of the events written to `out` so far. */
function collect(out: PassThrough): string[] {
  const texts: string[] = [];
  let buffer = '';
  out.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = /^data: (.*)$/m.exec(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (data) texts.push((JSON.parse(data[1]!) as { text: string }).text);
    }
  });
  return texts;
}

/**
 * A reader connection whose XREAD answers can be held back once Redis gave them (the read is out
 * for that long), to stage a client connecting while a read is under way.
 */
function holdingReader(url: string) {
  const reader = createRedis(url);
  let gate: Promise<void> | undefined;
  let open = (): void => undefined;
  let holding = 0;
  const held = new Proxy(reader, {
    get(target, property) {
      if (property === 'xread') {
        return async (...args: unknown[]) => {
          const reply = await (target.xread as (...a: unknown[]) => Promise<unknown>)(...args);
          if (gate && reply) {
            holding += 1;
            await gate;
            holding -= 1;
          }
          return reply;
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    reader: held,
    /** Holds every read that finds something until `release`. */
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      gate = undefined;
      open();
    },
    holding: () => holding,
  };
}

/** A hub on `url`: on a cluster, with a subscriber to the appends' announcements. */
function hubOn(
  url: string,
  control: Redis,
  sweepMs: number,
  reader = createRedis(url),
): VisitorHub {
  return new VisitorHub({
    reader,
    ...(isCluster(reader)
      ? { subscriber: reader.duplicate(undefined, { shardedSubscribers: true }) }
      : {}),
    control,
    maxClients: 100,
    sweepMs,
    logger: createLogger({ component: 'test', level: 'silent' }),
  });
}

/** The owner of a test stream: every visitor a bot of its own, so no test meets another's limits. */
const owner = (visitor: string): StreamOwner => ({
  appId: visitor,
  visitorId: visitor,
  tokenKey: 'k',
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

forEachRedisMode('web event hub', function (mode) {
  this.timeout(30_000);
  const prefix = uniquePrefix();
  let redis: Redis;
  let streams: VisitorStreams;
  // Its sweep is far off: what it delivers within the tests' waits came by the fast path.
  let hub: VisitorHub;
  before(() => {
    redis = createRedis(mode.url(), { scripts: WEB_SCRIPTS });
    streams = new VisitorStreams({ redis, prefix, maxLen: 100, ttlS: 600 });
    hub = hubOn(mode.url(), redis, 600_000);
  });
  const append = (visitor: string, text: string) =>
    streams.append('app', visitor, {
      id: `${visitor}:${text}`,
      conversation_id: 'c',
      direction: 'out',
      turn_id: 't',
      message_type: 'text',
      text,
      created_at: new Date().toISOString(),
    });

  after(async () => {
    await hub.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('when forty visitors are connected at once, then each gets only its own events, in order, once', async () => {
    const visitors = Array.from({ length: 40 }, (_, i) => `v${i}`);
    const seen = visitors.map((v) =>
      collect(hub.open(visitorStreamKey(prefix, 'app', v), '0-0', owner(v))),
    );
    for (const round of ['a', 'b', 'c'])
      await Promise.all(visitors.map((v) => append(v, `${v}-${round}`)));
    await waitFor(() => seen.every((texts) => texts.length === 3), {
      timeoutMs: 5000,
      what: 'three events each',
    });
    // (KEYSLOT goes to any node: asked once the cluster connection is ready.)
    if (isCluster(redis)) {
      // The streams lie on every master (each holds a third of the slots).
      const thirds = new Set<number>();
      for (const v of visitors) {
        const slot = Number(await redis.cluster('KEYSLOT', visitorStreamKey(prefix, 'app', v)));
        thirds.add(Math.floor((slot * 3) / 16384));
      }
      expect(thirds.size).to.equal(3);
    }
    // Nothing more comes (no repeat) once every stream was read again.
    await append('v0', 'v0-d');
    await waitFor(() => seen[0]!.length === 4, { timeoutMs: 5000, what: 'the fourth' });
    await pause(200);
    seen.forEach((texts, i) =>
      expect(texts).to.deep.equal(
        (i === 0 ? ['a', 'b', 'c', 'd'] : ['a', 'b', 'c']).map((r) => `v${i}-${r}`),
      ),
    );
  });

  it('when a client connects while the reader is blocked, then its backlog is read at once, not after the block times out', async () => {
    // The loop is blocked on the previous test's streams (its block lasts 30 s).
    await append('late', 'waiting');
    const texts = collect(hub.open(visitorStreamKey(prefix, 'app', 'late'), '0-0', owner('late')));
    await waitFor(() => texts.length === 1, { timeoutMs: 5000, what: 'the backlog' });
    expect(texts).to.deep.equal(['waiting']);
  });

  it('when two clients of one visitor are at different positions, then each gets what it has not seen', async () => {
    const key = visitorStreamKey(prefix, 'app', 'two');
    const first = await append('two', 'one');
    await append('two', 'two');
    const fromStart = collect(hub.open(key, '0-0', owner(key)));
    const fromFirst = collect(hub.open(key, first, owner(key)));
    await append('two', 'three');
    await waitFor(() => fromStart.length === 3 && fromFirst.length === 2, {
      timeoutMs: 5000,
      what: 'both',
    });
    expect(fromStart).to.deep.equal(['one', 'two', 'three']);
    expect(fromFirst).to.deep.equal(['two', 'three']);
  });

  it('when a client resumes with a Last-Event-ID, then it reads strictly after it, then what is appended', async () => {
    const key = visitorStreamKey(prefix, 'app', 'resume');
    await append('resume', 'r1');
    const second = await append('resume', 'r2');
    await append('resume', 'r3');
    const texts = collect(hub.open(key, second, owner(key)));
    await waitFor(() => texts.length === 1, { timeoutMs: 5000, what: 'the backlog after it' });
    await append('resume', 'r4');
    await waitFor(() => texts.length === 2, { timeoutMs: 5000, what: 'the new event' });
    await pause(200);
    expect(texts).to.deep.equal(['r3', 'r4']);
  });

  it('when a client with an older position connects while a read of its stream is out, then it still gets every event after its position, in order, once', async () => {
    const key = visitorStreamKey(prefix, 'app', 'joining');
    const first = await append('joining', 'j1');
    await append('joining', 'j2');
    const third = await append('joining', 'j3');
    const holding = holdingReader(mode.url());
    const own = hubOn(mode.url(), redis, 600_000, holding.reader);
    try {
      const ahead = collect(own.open(key, third, owner(key)));
      await pause(300);
      // The read that finds j4 starts after j3 (the only client's position) and is held out.
      holding.hold();
      await append('joining', 'j4');
      await waitFor(() => holding.holding() > 0, { timeoutMs: 5000, what: 'the read held' });
      const behind = collect(own.open(key, first, owner(key)));
      await pause(100);
      holding.release();
      await waitFor(() => ahead.length === 1 && behind.length === 3, {
        timeoutMs: 5000,
        what: `both clients' events (${JSON.stringify({ ahead, behind })})`,
      });
      await pause(300);
      expect(ahead).to.deep.equal(['j4']);
      expect(behind).to.deep.equal(['j2', 'j3', 'j4']);
    } finally {
      holding.release();
      await own.close();
    }
  });

  it("when Redis refuses the read of one client's position, then that client's stream ends and the other clients are still served", async () => {
    const own = hubOn(mode.url(), redis, 600_000);
    try {
      // The hub trusts its caller's positions (the route checks them): one Redis refuses.
      const refused = own.open(
        visitorStreamKey(prefix, 'app', 'hostile'),
        '18446744073709551616-0',
        owner('hostile'),
      );
      let ended = false;
      refused.on('end', () => (ended = true)).resume();
      const texts = collect(
        own.open(visitorStreamKey(prefix, 'app', 'bystander'), '0-0', owner('bystander')),
      );
      await append('bystander', 'served');
      await waitFor(() => texts.length === 1, { timeoutMs: 5000, what: 'the other client served' });
      await waitFor(() => ended, { timeoutMs: 5000, what: 'the refused client ended' });
      expect(own.size).to.equal(1);
      await append('bystander', 'again');
      await waitFor(() => texts.length === 2, { timeoutMs: 5000, what: 'the next event' });
      expect(texts).to.deep.equal(['served', 'again']);
    } finally {
      await own.close();
    }
  });

  it('when a typing signal is appended, then it arrives at once as a typing event', async () => {
    const out = hub.open(visitorStreamKey(prefix, 'app', 'typist'), '0-0', owner('typist'));
    let raw = '';
    out.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    await pause(100);
    await streams.signal('app', 'typist', { event: 'typing', conversation_id: 'c', at: 'now' });
    await waitFor(() => raw.includes('event: typing'), { timeoutMs: 5000, what: 'the signal' });
    expect(raw).to.match(/event: typing\ndata: \{"event":"typing","conversation_id":"c"/);
  });

  // A single server's hub blocks on the streams themselves: it subscribes to nothing, so there is
  // no announcement to lose and no subscription to end.
  if (mode.name === 'cluster') {
    it('when the last client of a visitor leaves, then its announcements are no longer subscribed to', async () => {
      const key = visitorStreamKey(prefix, 'app', 'leaving');
      const subscribers = async () => {
        let count = 0;
        for (const node of mastersOf(redis)) {
          const [, n] = (await node.call('PUBSUB', 'SHARDNUMSUB', appendedChannel(key))) as [
            string,
            number,
          ];
          count += Number(n);
        }
        return count;
      };
      const first = hub.open(key, '0-0', owner(key));
      const second = hub.open(key, '0-0', owner(key));
      await waitFor(async () => (await subscribers()) === 1, { what: 'one subscription' });
      first.destroy();
      await pause(100);
      expect(await subscribers()).to.equal(1);
      second.destroy();
      await waitFor(async () => (await subscribers()) === 0, { what: 'no subscription' });
    });

    it('when an append is not announced, then the sweep delivers it within its period, once', async () => {
      const swept = hubOn(mode.url(), redis, 500);
      try {
        const key = visitorStreamKey(prefix, 'app', 'unannounced');
        const texts = collect(swept.open(key, '0-0', owner(key)));
        await append('unannounced', 'announced');
        await waitFor(() => texts.length === 1, { timeoutMs: 5000, what: 'the announced one' });
        // Appended as the script does, but without its SPUBLISH: as if the announcement was lost.
        const data = JSON.stringify({ id: 'x', text: 'silent' });
        const started = Date.now();
        await redis.xadd(key, '*', 'data', data);
        await waitFor(() => texts.length === 2, { timeoutMs: 5000, what: 'the swept one' });
        expect(Date.now() - started).to.be.below(2500);
        await pause(1200);
        expect(texts).to.deep.equal(['announced', 'silent']);
      } finally {
        await swept.close();
      }
    });

    it('when the subscriber loses its connections, then events appended meanwhile still arrive, in order, once', async () => {
      const swept = hubOn(mode.url(), redis, 1000);
      try {
        const key = visitorStreamKey(prefix, 'app', 'cut');
        const texts = collect(swept.open(key, '0-0', owner(key)));
        await append('cut', 'before');
        await waitFor(() => texts.length === 1, { timeoutMs: 5000, what: 'the first' });
        // Every pub/sub connection on every master dropped, as at a failover.
        let killed = 0;
        for (const node of mastersOf(redis))
          killed += Number(await node.call('CLIENT', 'KILL', 'TYPE', 'PUBSUB'));
        expect(killed).to.be.at.least(1);
        await append('cut', 'during');
        await append('cut', 'after');
        await waitFor(() => texts.length === 3, { timeoutMs: 5000, what: 'the rest' });
        await pause(1500);
        expect(texts).to.deep.equal(['before', 'during', 'after']);
      } finally {
        await swept.close();
      }
    });
  }
});
