import { expect } from 'chai';
import { listDeadLetters } from '../src/shared/bus/dead-letters.ts';
import type { Producer } from '../src/shared/bus/producer.ts';
import type { Redis } from '../src/shared/redis.ts';
import { busFixture, type BusFixture, type ConsumerOverrides } from './support/bus.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { waitFor } from './support/services.ts';

/** `indexer` messages: the consumer shares its slots by `collection_name`, the "bot" here. */
interface IndexerMessage {
  collection_name: string;
  files: string[];
  ordering_key?: string;
}

const PARTITIONS = 4;
/** Message `seq` of conversation `chat` of `bot`; the file name carries the sequence number. */
const msg = (bot: string, chat: number, seq: number): IndexerMessage => ({
  collection_name: bot,
  files: [`${seq}.pdf`],
  ordering_key: `${bot}:${chat}`,
});
const seqOf = (m: IndexerMessage): number => Number.parseInt(m.files[0]!, 10);

forEachRedisMode('topic bus: fairness between bots', (mode) => {
  let bus: BusFixture<IndexerMessage>;
  let redis: Redis;
  let prefix: string;
  let producer: Producer;
  const consumer = (overrides: ConsumerOverrides<IndexerMessage>) => bus.consumer(overrides);
  const pending = () => bus.pending();

  /** Publishes `perChat` messages to each of `chats` conversations of `bot`, interleaved. */
  const publish = async (bot: string, chats: number, perChat: number): Promise<void> => {
    const batch = [];
    for (let seq = 0; seq < perChat; seq += 1) {
      for (let chat = 0; chat < chats; chat += 1) {
        batch.push({ topic: 'indexer' as const, message: msg(bot, chat, seq) });
      }
    }
    await producer.publishMany(batch);
  };

  beforeEach(() => {
    bus = busFixture<IndexerMessage>({
      redisUrl: mode.url(),
      topic: 'indexer',
      partitions: PARTITIONS,
      defaults: { concurrency: 4, batchSize: 16 },
    });
    ({ redis, prefix, producer } = bus);
  });

  afterEach(() => bus.close());

  it('when one bot’s handlers hang with a backlog far past the in-flight bound, then another bot’s later messages are still read and handled, and the hung bot’s backlog is handled once, in order, when it recovers', async () => {
    let release!: () => void;
    const recovered = new Promise<void>((resolve) => (release = resolve));
    const handled = new Map<string, number[]>(); // conversation -> sequence numbers
    const deliveries: number[] = [];
    let runningA = 0;
    let mostA = 0;
    await consumer({
      // Not the 300 ms of the other bus tests: a lease lost on a loaded machine is taken back only
      // once the former tenure's work is over, and bot A's hangs until the test releases it.
      leaseMs: 3000,
      handler: async (m, context) => {
        if (m.collection_name === 'bot-a') {
          runningA += 1;
          mostA = Math.max(mostA, runningA);
          await recovered;
          runningA -= 1;
          deliveries.push(context.deliveries);
        }
        const key = m.ordering_key!;
        handled.set(key, [...(handled.get(key) ?? []), seqOf(m)]);
      },
    }).start();
    // 300 entries of bot A, 4.7 times the in-flight bound (4 x 16 = 64), then bot B's.
    try {
      await publish('bot-a', 30, 10);
      await publish('bot-b', 5, 4);
      await waitFor(
        () => [0, 1, 2, 3, 4].every((chat) => handled.get(`bot-b:${chat}`)?.length === 4),
        { what: 'bot B handled while bot A hangs' },
      );
      for (let chat = 0; chat < 5; chat += 1) {
        expect(handled.get(`bot-b:${chat}`)).to.deep.equal([0, 1, 2, 3]);
      }
      expect(mostA, 'bot A holds at most half the slots').to.equal(2);
      expect([...handled.keys()].some((k) => k.startsWith('bot-a'))).to.equal(false);
    } finally {
      // Also when it failed: the consumer's close waits for bot A's handlers.
      release();
    }
    await waitFor(async () => deliveries.length === 300 && (await pending()) === 0, {
      timeoutMs: 20_000,
      what: 'bot A’s backlog handled',
    });
    for (let chat = 0; chat < 30; chat += 1) {
      expect(handled.get(`bot-a:${chat}`), `conversation ${chat}`).to.deep.equal(
        Array.from({ length: 10 }, (_, i) => i),
      );
    }
    // Entries left pending and fetched again were not counted as further deliveries.
    expect(new Set(deliveries)).to.deep.equal(new Set([1]));
    expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length(0);
  });

  it('when a bot’s messages all fail slowly, stalling the consumer, then each is dead-lettered after maxDeliveries, also those read past the stall, and another bot’s messages are handled', async () => {
    const calls = new Map<string, number>();
    const handledB: number[] = [];
    await consumer({
      concurrency: 4,
      batchSize: 4,
      // Not the 300 ms of the other bus tests: a lease round late by that much on a loaded
      // machine loses the partition and takes it back, and claiming its own in-flight entries
      // counts a delivery that no handler ran, which this test would see as a missing call.
      leaseMs: 3000,
      handler: async (m) => {
        if (m.collection_name === 'bot-b') {
          handledB.push(seqOf(m));
          return;
        }
        const id = `${m.ordering_key}/${seqOf(m)}`;
        calls.set(id, (calls.get(id) ?? 0) + 1);
        // Longer than the stall the consumer waits before reading past this bot's backlog.
        await new Promise((resolve) => setTimeout(resolve, 300));
        throw new Error('provider down');
      },
    }).start();
    await publish('bot-a', 12, 2);
    await publish('bot-b', 1, 5);
    await waitFor(() => handledB.length === 5, { what: 'bot B handled' });
    // Bot A's entries take 3 deliveries of 300 ms each, two at a time: B came first.
    expect(await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).to.have.length.below(24);
    await waitFor(
      async () => (await listDeadLetters(redis, prefix, 'indexer', PARTITIONS)).length === 24,
      {
        timeoutMs: 20_000,
        what: 'bot A’s entries dead-lettered',
      },
    );
    const letters = await listDeadLetters(redis, prefix, 'indexer', PARTITIONS);
    expect(new Set(letters.map((l) => l.deliveries))).to.deep.equal(new Set([3]));
    expect(new Set(calls.values())).to.deep.equal(new Set([3]));
    expect(handledB).to.deep.equal([0, 1, 2, 3, 4]);
    expect(await pending()).to.equal(0);
  });

  it('when a lone bot has many conversations, then it runs perBotConcurrency handlers at once and every message is handled once', async () => {
    let running = 0;
    let most = 0;
    let count = 0;
    await consumer({
      concurrency: 6,
      perBotConcurrency: 3,
      handler: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running -= 1;
        count += 1;
      },
    }).start();
    await publish('bot-a', 40, 3);
    await waitFor(async () => count === 120 && (await pending()) === 0, {
      timeoutMs: 20_000,
      what: 'all handled',
    });
    expect(most).to.equal(3);
    expect(count).to.equal(120);
  });
});
