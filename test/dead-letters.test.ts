/**
 * Dead letters over a topic's partitions (src/shared/bus/dead-letters.ts): one dead-letter stream
 * per partition, listed oldest first across them and paged without skipping or repeating a
 * letter, and replayed back onto the partition each came from. On one server and on a cluster,
 * where each partition's keys lie in their own slot.
 */
import { expect } from 'chai';
import {
  countDeadLetters,
  getDeadLetter,
  listDeadLetters,
  parseDeadLetterId,
  replayAllDeadLetters,
  replayDeadLetters,
  type ReplayTarget,
} from '../src/shared/bus/dead-letters.ts';
import { busFixture, keyInPartition, type BusFixture } from './support/bus.ts';
import { forEachRedisMode } from './support/redis-modes.ts';

interface IndexerMessage {
  collection_name: string;
  files: string[];
  ordering_key?: string;
}

const PARTITIONS = 4;

/** An ordering key that hashes to `partition` of PARTITIONS. */
const keyFor = (partition: number): string => keyInPartition(partition, PARTITIONS);

forEachRedisMode('dead letters over partitions', (mode) => {
  let bus: BusFixture<IndexerMessage>;
  let target: ReplayTarget;

  beforeEach(() => {
    bus = busFixture<IndexerMessage>({
      topic: 'indexer',
      partitions: PARTITIONS,
      redisUrl: mode.url(),
    });
    target = {
      redis: bus.redis,
      producer: bus.producer,
      prefix: bus.prefix,
      topic: 'indexer',
      partitions: PARTITIONS,
      maxLen: 10_000,
    };
  });

  afterEach(() => bus.close());

  /** Writes a dead letter into `partition`'s stream (at `entryId`, or a new id); its listed id. */
  const addLetter = async (partition: number, message: unknown, entryId = '*'): Promise<string> => {
    const id = await bus.redis.xadd(
      bus.keys.dead(partition),
      entryId,
      'data',
      typeof message === 'string' ? message : JSON.stringify(message),
      'code',
      'BW_ERR_HANDLER',
      'reason',
      'failed 3 deliveries',
    );
    return `p${partition}-${id!}`;
  };
  const list = (options: { count?: number; after?: string } = {}) =>
    listDeadLetters(bus.redis, bus.prefix, 'indexer', PARTITIONS, options);
  const streamData = async (partition: number): Promise<unknown[]> =>
    (await bus.redis.xrange(bus.keys.partitions[partition]!, '-', '+')).map(
      ([, fields]) => JSON.parse(fields[1]!) as unknown,
    );

  it('when letters lie in several partitions, some at the same stream id, then pages of every size list each once, by stream id and then partition', async () => {
    // Stream ids repeat across partitions: ties go by partition. Partition 3 holds none.
    const written: [number, string][] = [
      [0, '1000-0'],
      [0, '1000-1'],
      [0, '3000-0'],
      [1, '1000-0'],
      [1, '2000-0'],
      [1, '3000-0'],
      [2, '1000-1'],
      [2, '1500-0'],
      [2, '3000-0'],
      [2, '3000-1'],
    ];
    for (const [p, id] of written) await addLetter(p, { n: `${p}/${id}` }, id);
    const expected = [
      'p0-1000-0',
      'p1-1000-0',
      'p0-1000-1',
      'p2-1000-1',
      'p2-1500-0',
      'p1-2000-0',
      'p0-3000-0',
      'p1-3000-0',
      'p2-3000-0',
      'p2-3000-1',
    ];

    const all = await list();
    expect(all.map((l) => l.id)).to.deep.equal(expected);
    expect(all.map((l) => JSON.parse(l.data) as unknown)).to.deep.equal(
      expected.map((id) => {
        const { partition, entryId } = parseDeadLetterId(id, PARTITIONS)!;
        return { n: `${partition}/${entryId}` };
      }),
    );
    expect(all.map((l) => l.partition)).to.deep.equal(expected.map((id) => Number(id[1])));
    expect(await countDeadLetters(bus.redis, bus.prefix, 'indexer', PARTITIONS)).to.equal(10);

    for (const count of [1, 2, 3, 4, 9]) {
      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await list({ count, ...(after ? { after } : {}) });
        if (page.length === 0) break;
        expect(page.length, `a page of ${count}`).to.be.at.most(count);
        pages.push(page.map((l) => l.id));
        after = page[page.length - 1]!.id;
      }
      expect(pages.flat(), `pages of ${count}`).to.deep.equal(expected);
      expect(pages.length, `pages of ${count}`).to.equal(Math.ceil(expected.length / count));
    }

    // A cursor at every letter: what follows it, exactly.
    for (const [i, id] of expected.entries()) {
      expect(
        (await list({ after: id })).map((l) => l.id),
        `after ${id}`,
      ).to.deep.equal(expected.slice(i + 1));
    }
    // A cursor naming no letter still cuts the order where it would be.
    expect((await list({ after: 'p1-1000-1', count: 2 })).map((l) => l.id)).to.deep.equal([
      'p2-1000-1',
      'p2-1500-0',
    ]);
    expect((await list({ after: 'p3-1000-1', count: 1 })).map((l) => l.id)).to.deep.equal([
      'p2-1500-0',
    ]);
    // One of the topic's partitions, or none: nothing.
    expect(await list({ after: `p${PARTITIONS}-1-0` })).to.deep.equal([]);
    expect(await list({ after: '1000-0' })).to.deep.equal([]);
  });

  it('when a letter of partition k is replayed, then it goes back onto partition k and leaves its dead-letter stream', async () => {
    for (const k of [1, 3]) {
      const message = { collection_name: `c${k}`, files: ['a.pdf'], ordering_key: keyFor(k) };
      const id = await addLetter(k, message);
      expect(id).to.match(new RegExp(`^p${k}-\\d+-\\d+$`));
      const got = await getDeadLetter(bus.redis, bus.prefix, 'indexer', PARTITIONS, id);
      expect(got).to.include({ id, partition: k, code: 'BW_ERR_HANDLER' });

      const result = await replayDeadLetters(target, [id]);
      expect(result.refused).to.deep.equal([]);
      expect(result.replayed.map((r) => r.deadId)).to.deep.equal([id]);
      expect(await streamData(k)).to.deep.equal([message]);
      expect(await bus.redis.xlen(bus.keys.dead(k))).to.equal(0);
      expect(await getDeadLetter(bus.redis, bus.prefix, 'indexer', PARTITIONS, id)).to.equal(
        undefined,
      );
    }
    // A message without an ordering key goes back to its own partition too.
    const keyless = { collection_name: 'keyless', files: ['b.pdf'] };
    const id = await addLetter(2, keyless);
    expect((await replayDeadLetters(target, [id])).replayed).to.have.length(1);
    expect(await streamData(2)).to.deep.equal([keyless]);
    expect(await streamData(0)).to.deep.equal([]);
    // Replayed once: a second replay finds nothing.
    expect((await replayDeadLetters(target, [id])).refused).to.deep.equal([
      { deadId: id, code: 'BW_ERR_NOT_FOUND', reason: 'no such dead letter' },
    ]);
  });

  it('when ids name no letter, or a letter whose ordering key hashes to another partition, then replay refuses them and keeps the letter', async () => {
    // Written to partition 0 while its key hashes to 2: the partition count changed since.
    const moved = await addLetter(0, {
      collection_name: 'moved',
      files: ['a.pdf'],
      ordering_key: keyFor(2),
    });
    const result = await replayDeadLetters(target, [
      moved,
      '1-0',
      `p${PARTITIONS}-1-0`,
      'p0-1-0',
      'p0-99999999999999999999-0',
    ]);
    expect(result.replayed).to.deep.equal([]);
    expect(result.refused.map((r) => [r.deadId, r.code])).to.deep.equal([
      ['1-0', 'BW_ERR_NOT_FOUND'],
      [`p${PARTITIONS}-1-0`, 'BW_ERR_NOT_FOUND'],
      ['p0-1-0', 'BW_ERR_NOT_FOUND'],
      ['p0-99999999999999999999-0', 'BW_ERR_NOT_FOUND'],
      [moved, 'BW_ERR_CONFLICT'],
    ]);
    expect(result.refused[4]!.reason).to.contain('partition count changed');
    expect((await list()).map((l) => l.id)).to.deep.equal([moved]);
    for (let p = 0; p < PARTITIONS; p += 1) expect(await streamData(p)).to.deep.equal([]);
  });

  it('when every letter is replayed in batches smaller than a partition holds, then each goes back onto its own partition once, and an invalid one stays', async () => {
    const messages: { p: number; message: IndexerMessage }[] = [];
    for (const p of [0, 1, 3]) {
      for (let i = 0; i < 3; i += 1) {
        const message = {
          collection_name: `c${p}-${i}`,
          files: ['a.pdf'],
          ordering_key: keyFor(p),
        };
        messages.push({ p, message });
        await addLetter(p, message);
      }
    }
    const invalid = await addLetter(1, { collection_name: 'no files' });
    const result = await replayAllDeadLetters(target, { batch: 2 });
    expect(result.replayed).to.have.length(9);
    expect(result.refused.map((r) => [r.deadId, r.code])).to.deep.equal([
      [invalid, 'BW_ERR_MESSAGE_INVALID'],
    ]);
    for (const p of [0, 1, 2, 3]) {
      expect(await streamData(p), `partition ${p}`).to.deep.equal(
        messages.filter((m) => m.p === p).map((m) => m.message),
      );
    }
    expect((await list()).map((l) => l.id)).to.deep.equal([invalid]);
  });
});
