/**
 * The topic scripts as an operator runs them: the real .sh files against real Redis (one server,
 * and a private Redis Cluster), each test under a stream prefix of its own, with no env file
 * involved (ENV_FILE points nowhere).
 */
import { expect } from 'chai';
import { countDeadLetters, listDeadLetters } from '../src/shared/bus/dead-letters.ts';
import { topicKeys } from '../src/shared/bus/topics.ts';
import type { Redis } from '../src/shared/redis.ts';
import { keyInPartition } from './support/bus.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { run, start, type RunResult, type Running } from './support/run.ts';
import {
  connectRedis,
  DEFAULT_PARTITIONS,
  dropPrefix,
  topicEntries,
  uniquePrefix,
  waitFor,
} from './support/services.ts';

const MESSAGE = { collection_name: 'faq', files: ['a.pdf', 'b.xlsx'] };

forEachRedisMode('topic scripts', (mode) => {
  let redis: Redis;
  let prefix: string;
  let keys: ReturnType<typeof topicKeys>;
  let env: Record<string, string>;
  const children: Running[] = [];

  const scriptWith = (
    extraEnv: Record<string, string>,
    name: string,
    ...args: string[]
  ): Promise<RunResult> => run(`./scripts/${name}`, args, { env: { ...env, ...extraEnv } });
  const script = (name: string, ...args: string[]): Promise<RunResult> =>
    scriptWith({}, name, ...args);

  /**
   * Puts a dead letter on the dead-letter stream of the indexer topic's `partition`, shaped as
   * the consumer does; its listed id.
   */
  const addDeadLetter = async (data: string, reason: string, partition = 0): Promise<string> => {
    const entryId = (await redis.xadd(
      keys.dead(partition),
      '*',
      'data',
      data,
      'source_id',
      '1700000000000-0',
      'topic',
      'indexer',
      'group',
      'indexer',
      'consumer',
      'worker-1',
      'code',
      'BW_ERR_HANDLER',
      'reason',
      reason,
      'deliveries',
      '5',
      'failed_at',
      '2026-11-22T03:00:00.000Z',
    )) as string;
    return `p${partition}-${entryId}`;
  };
  const deadIds = async (): Promise<string[]> =>
    (await listDeadLetters(redis, prefix, 'indexer', DEFAULT_PARTITIONS)).map((l) => l.id);

  beforeEach(() => {
    redis = connectRedis(mode.url());
    prefix = uniquePrefix();
    keys = topicKeys(prefix, 'indexer', DEFAULT_PARTITIONS);
    // BW_SETUP_DONE: the suite's set-up made Redis reachable; these tests are about the topic
    // tool itself (test/dev-scripts.test.ts covers the set-up).
    env = {
      REDIS_URL: mode.url(),
      STREAM_PREFIX: prefix,
      ENV_FILE: '/nonexistent/.env-test',
      BW_SETUP_DONE: '1',
    };
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) {
        child.child.kill('SIGKILL');
        await child.exited;
      }
    }
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  describe('create-topic.sh', () => {
    it('when given a topic, then each of its partition streams exists with the consumer group of the same name', async () => {
      const result = await script('create-topic.sh', 'indexer');
      expect(result.code, result.stderr).to.equal(0);
      expect(keys.partitions).to.have.length(DEFAULT_PARTITIONS);
      for (const stream of keys.partitions) expect(await redis.exists(stream), stream).to.equal(1);
      const groups = (await redis.call(
        'XINFO',
        'GROUPS',
        keys.partitions[DEFAULT_PARTITIONS - 1]!,
      )) as unknown[];
      const names = groups.map((group) => {
        // RESP2 gives a flat [name, value, ...] list per group, RESP3 a map ioredis flattens alike.
        const fields = group as unknown[];
        return String(fields[fields.indexOf('name') + 1]);
      });
      expect(names).to.deep.equal(['indexer']);
    });

    it('when run twice, then the second run succeeds too', async () => {
      expect((await script('create-topic.sh', 'indexer')).code).to.equal(0);
      const again = await script('create-topic.sh', 'indexer');
      expect(again.code, again.stderr).to.equal(0);
    });
  });

  describe('send-message.sh and read-message.sh', () => {
    it('when a message is sent while a reader runs, then the reader prints it as one JSON line and stops on SIGINT', async () => {
      const reader = start('./scripts/read-message.sh', ['indexer'], { env });
      children.push(reader);
      await waitFor(() => /reading topic indexer/.test(reader.stderr()), {
        timeoutMs: 15_000,
        what: `the reader's "reading ..." line (stderr: ${reader.stderr()})`,
      });

      const sent = await script('send-message.sh', 'indexer', JSON.stringify(MESSAGE));
      expect(sent.code, sent.stderr).to.equal(0);
      expect(sent.stdout.trim()).to.match(/^\d+-\d+$/);

      await waitFor(() => reader.stdout().includes('\n'), { what: 'a line on the reader stdout' });
      const lines = reader.stdout().split('\n').filter(Boolean);
      expect(lines).to.have.length(1);
      expect(JSON.parse(lines[0]!)).to.deep.equal(MESSAGE);

      const stoppedAt = Date.now();
      reader.child.kill('SIGINT');
      const exit = await reader.exited;
      expect(exit.code, reader.stderr()).to.equal(0);
      expect(Date.now() - stoppedAt).to.be.lessThan(3000);
    });

    it('when messages were sent to several partitions before the reader started, then --from-start prints each once, in the order sent', async () => {
      // Ordering keys of three partitions.
      const names = ['m1', 'm2', 'm3'];
      const orderingKeys = [0, 1, 2].map((p) => keyInPartition(p, DEFAULT_PARTITIONS, 'chat'));
      for (const [i, name] of names.entries()) {
        const message = { ...MESSAGE, collection_name: name, ordering_key: orderingKeys[i] };
        const sent = await script('send-message.sh', 'indexer', JSON.stringify(message));
        expect(sent.code, sent.stderr).to.equal(0);
      }
      const streams = new Set((await topicEntries(redis, prefix, 'indexer')).map((e) => e.stream));
      expect(streams.size).to.equal(names.length);

      const reader = start('./scripts/read-message.sh', ['indexer', '--from-start'], { env });
      children.push(reader);
      const printed = () => reader.stdout().split('\n').filter(Boolean);
      await waitFor(() => printed().length >= names.length, {
        timeoutMs: 15_000,
        what: `${names.length} lines (stderr: ${reader.stderr()})`,
      });
      // Another read or two, in case one would print a line again.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(printed().map((line) => JSON.parse(line).collection_name)).to.deep.equal(names);
      reader.child.kill('SIGINT');
      expect((await reader.exited).code, reader.stderr()).to.equal(0);
    });

    it('when the message is not JSON, then exit 2 naming the JSON problem and nothing is written', async () => {
      const result = await script('send-message.sh', 'indexer', '{"collection_name":');
      expect(result.code).to.equal(2);
      expect(result.stderr).to.contain('BW_ERR_MESSAGE_MALFORMED');
      expect(await topicEntries(redis, prefix, 'indexer')).to.deep.equal([]);
    });

    it('when the message fails the topic schema, then exit 2 with BW_ERR_MESSAGE_INVALID and the path', async () => {
      const result = await script('send-message.sh', 'indexer', '{"collection_name":"faq"}');
      expect(result.code).to.equal(2);
      expect(result.stderr).to.contain('BW_ERR_MESSAGE_INVALID');
      expect(result.stderr).to.contain('/files');
      expect(await topicEntries(redis, prefix, 'indexer')).to.deep.equal([]);
    });

    it('when the topic is unknown, then exit 2 with "unknown topic"', async () => {
      const result = await script('send-message.sh', 'nope', JSON.stringify(MESSAGE));
      expect(result.code).to.equal(2);
      expect(result.stderr).to.contain('unknown topic');
      expect(await redis.exists(`${prefix}:{nope}`)).to.equal(0);
    });

    it('when Redis cannot be reached, then exit 3 with BW_ERR_UNAVAILABLE', async () => {
      const result = await scriptWith(
        { REDIS_URL: 'redis://127.0.0.1:1' },
        'send-message.sh',
        'indexer',
        JSON.stringify(MESSAGE),
      );
      expect(result.code, result.stderr).to.equal(3);
      expect(result.stderr).to.contain('error: BW_ERR_UNAVAILABLE');
    });

    it('when a setting is malformed, then exit 2 with BW_ERR_CONFIG naming the key', async () => {
      const result = await scriptWith(
        { TOPIC_PARTITIONS: 'many' },
        'send-message.sh',
        'indexer',
        JSON.stringify(MESSAGE),
      );
      expect(result.code, result.stderr).to.equal(2);
      expect(result.stderr).to.contain('error: BW_ERR_CONFIG');
      expect(result.stderr).to.contain('TOPIC_PARTITIONS');
    });
  });

  describe('dead-letters.sh', () => {
    it('when a topic has a dead letter, then list prints it as one JSON line with its reason', async () => {
      const data = JSON.stringify(MESSAGE);
      const id = await addDeadLetter(data, 'failed 5 deliveries; last failure: provider down');
      const result = await script('dead-letters.sh', 'list', 'indexer');
      expect(result.code, result.stderr).to.equal(0);
      const lines = result.stdout.split('\n').filter(Boolean);
      expect(lines).to.have.length(1);
      const letter = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(letter).to.include({
        id,
        topic: 'indexer',
        code: 'BW_ERR_HANDLER',
        reason: 'failed 5 deliveries; last failure: provider down',
        deliveries: 5,
        data,
      });
    });

    it('when a dead letter is replayed, then its data is back on the topic and it leaves the dead-letter stream', async () => {
      const id = await addDeadLetter(JSON.stringify(MESSAGE), 'bug, since fixed', 2);
      const result = await script('dead-letters.sh', 'replay', 'indexer', id);
      expect(result.code, result.stderr).to.equal(0);
      const entries = await topicEntries(redis, prefix, 'indexer');
      expect(entries).to.have.length(1);
      expect(JSON.parse(entries[0]!.data)).to.deep.equal(MESSAGE);
      expect(JSON.parse(result.stdout.trim())).to.deep.equal({ replayed: id, id: entries[0]!.id });
      // Back on the partition it was dead-lettered from.
      expect(await redis.xlen(keys.partitions[2]!)).to.equal(1);
      expect(await countDeadLetters(redis, prefix, 'indexer', DEFAULT_PARTITIONS)).to.equal(0);
    });

    it('when replay --all runs, then the valid letters go back on the topic and an invalid one is refused with its code and kept', async () => {
      const good = await addDeadLetter(JSON.stringify(MESSAGE), 'bug, since fixed', 1);
      const bad = await addDeadLetter('{"collection_name":"faq"}', 'BW_ERR_MESSAGE_INVALID', 0);
      const result = await script('dead-letters.sh', 'replay', 'indexer', '--all');
      expect(result.code).to.equal(2);
      const entries = await topicEntries(redis, prefix, 'indexer');
      expect(entries.map((e) => JSON.parse(e.data) as unknown)).to.deep.equal([MESSAGE]);
      expect(JSON.parse(result.stdout.trim())).to.deep.equal({
        replayed: good,
        id: entries[0]!.id,
      });
      expect(result.stderr).to.contain(`refused ${bad}: BW_ERR_MESSAGE_INVALID`);
      expect(await deadIds()).to.deep.equal([bad]);
    });

    it('when a dead letter still fails the schema, then replay exits 2 and keeps it', async () => {
      const id = await addDeadLetter(
        '{"collection_name":"faq"}',
        'BW_ERR_MESSAGE_INVALID: /files is required',
      );
      const result = await script('dead-letters.sh', 'replay', 'indexer', id);
      expect(result.code).to.equal(2);
      expect(result.stderr).to.contain(`refused ${id}`);
      expect(result.stderr).to.contain('/files');
      expect(await topicEntries(redis, prefix, 'indexer')).to.deep.equal([]);
      expect(await deadIds()).to.deep.equal([id]);
    });
  });
});
