/**
 * The web event hub alone: one reader loop over many visitors' streams, against real Redis.
 */
import { expect } from 'chai';
import type { PassThrough } from 'node:stream';
import { VisitorHub } from '../../src/api/web/visitor-hub.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { createRedis } from '../../src/shared/redis.ts';
import {
  VisitorStreams,
  visitorStreamKey,
  WEB_SCRIPTS,
} from '../../src/shared/web/visitor-stream.ts';
import { dropPrefix, REDIS_URL, uniquePrefix, waitFor } from '../support/services.ts';

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

describe('web event hub', function () {
  this.timeout(20_000);
  const prefix = uniquePrefix();
  const redis = createRedis(REDIS_URL, { scripts: WEB_SCRIPTS });
  const reader = createRedis(REDIS_URL);
  const streams = new VisitorStreams({ redis, prefix, maxLen: 100, ttlS: 600 });
  const hub = new VisitorHub({
    reader,
    control: redis,
    maxClients: 100,
    logger: createLogger({ component: 'test', level: 'silent' }),
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

  it('when forty visitors are connected at once, then each gets only its own events, in order', async () => {
    const visitors = Array.from({ length: 40 }, (_, i) => `v${i}`);
    const seen = visitors.map((v) => collect(hub.open(visitorStreamKey(prefix, 'app', v), '0-0')));
    for (const round of ['a', 'b', 'c'])
      await Promise.all(visitors.map((v) => append(v, `${v}-${round}`)));
    await waitFor(() => seen.every((texts) => texts.length === 3), { what: 'three events each' });
    seen.forEach((texts, i) =>
      expect(texts).to.deep.equal(['a', 'b', 'c'].map((r) => `v${i}-${r}`)),
    );
  });

  it('when a client connects while the reader is blocked, then its backlog is read at once, not after the block times out', async () => {
    // The loop is blocked on the previous test's streams (its block lasts 30 s).
    await append('late', 'waiting');
    const texts = collect(hub.open(visitorStreamKey(prefix, 'app', 'late'), '0-0'));
    await waitFor(() => texts.length === 1, { timeoutMs: 5000, what: 'the backlog' });
    expect(texts).to.deep.equal(['waiting']);
  });

  it('when two clients of one visitor are at different positions, then each gets what it has not seen', async () => {
    const key = visitorStreamKey(prefix, 'app', 'two');
    const first = await append('two', 'one');
    await append('two', 'two');
    const fromStart = collect(hub.open(key, '0-0'));
    const fromFirst = collect(hub.open(key, first));
    await append('two', 'three');
    await waitFor(() => fromStart.length === 3 && fromFirst.length === 2, { what: 'both' });
    expect(fromStart).to.deep.equal(['one', 'two', 'three']);
    expect(fromFirst).to.deep.equal(['two', 'three']);
  });
});
