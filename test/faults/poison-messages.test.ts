/**
 * Fault: poison messages on each topic, under a steady stream of other conversations. A poison
 * message ends in its topic's dead-letter stream with its reason, other conversations go on, and
 * the operator's replay command (scripts/dead-letters.sh, run as a child process) brings it back
 * once its cause is fixed. A message that fails its topic's schema (a producer with a bug) is
 * dead-lettered at once, and replay refuses it and keeps it.
 *
 * The topics come from WORKERS; a topic whose component can fail on a message for a fixable cause
 * has an entry in FIXABLE.
 */
import { expect } from 'chai';
import { listDeadLetters, type DeadLetter } from '../../src/shared/bus/dead-letters.ts';
import { topicKeys, type Topic } from '../../src/shared/bus/topics.ts';
import { startFaultSystem, WORKERS, type FaultSystem } from '../support/fault-system.ts';
import { forEachRedisMode } from '../support/redis-modes.ts';
import { expectDelivered, postMessage, recordRow, startTraffic } from '../support/fault-traffic.ts';
import { run } from '../support/run.ts';
import { waitFor } from '../support/services.ts';

interface FixablePoison {
  /** What goes wrong, for the test name. */
  cause: string;
  /** The code the dead letter must carry, and a pattern its reason must match. */
  code: string;
  reason: RegExp;
  /** Makes messages of `chat` fail. */
  arrange(sys: FaultSystem, chat: string): Promise<void>;
  fix(sys: FaultSystem): Promise<void>;
}

const FIXABLE: Partial<Record<Topic, FixablePoison>> = {
  channel: {
    cause: 'the platform fails every send to its chat (500)',
    code: 'BW_ERR_UPSTREAM',
    reason: /^failed 3 deliveries; last failure: BW_ERR_UPSTREAM: sending failed: 500/,
    async arrange(sys, chat) {
      sys.stub.behave((call) =>
        call.chat === chat
          ? {
              status: 500,
              body: { ok: false, error_code: 500, description: 'Internal Server Error' },
            }
          : 'ok',
      );
    },
    async fix(sys) {
      sys.stub.behave(undefined);
    },
  },
  flow: {
    // A stand-in for a bug: a trigger that refuses to store this conversation's state.
    cause: 'storing its conversation state fails (a database trigger raises)',
    code: 'BW_ERR_HANDLER',
    reason: /^failed 3 deliveries; last failure: BW_ERR_HANDLER: .*poisoned state/s, // the SQL spans lines
    async arrange(sys, chat) {
      await sys.schema.db.raw(`
        create function poison_state() returns trigger language plpgsql as $$
        begin
          if new.state::text like '%${chat}%' then raise exception 'poisoned state'; end if;
          return new;
        end $$`);
      await sys.schema.db.raw(`
        create trigger poison_state before insert or update on conversation_state
        for each row execute function poison_state()`);
    },
    async fix(sys) {
      await sys.schema.db.raw('drop trigger poison_state on conversation_state');
      await sys.schema.db.raw('drop function poison_state()');
    },
  },
};

/**
 * The field the buggy producer's `{source, turn_id}` lacks for each topic's schema (the envelope
 * topics need an intent; a question needs its collection; an indexing request its collection and
 * files, and `source` is not one of its fields either).
 */
const MISSING: Record<Topic, string> = {
  channel: 'intent',
  language: 'intent',
  flow: 'intent',
  retriver: 'collection_name',
  indexer: 'collection_name',
};

async function deadLetters(sys: FaultSystem, topic: Topic): Promise<DeadLetter[]> {
  return listDeadLetters(sys.redis, sys.prefix, topic, Number(sys.env.TOPIC_PARTITIONS));
}

/** Runs scripts/dead-letters.sh with the system's Redis and prefix, as an operator would. */
function deadLettersScript(sys: FaultSystem, args: string[]) {
  return run('bash', ['scripts/dead-letters.sh', ...args], {
    env: {
      ENV_FILE: '/nonexistent/.env',
      REDIS_URL: sys.env.REDIS_URL!,
      STREAM_PREFIX: sys.env.STREAM_PREFIX!,
      TOPIC_PARTITIONS: sys.env.TOPIC_PARTITIONS!,
    },
  });
}

/** The dead letter `id` as `scripts/dead-letters.sh list` shows it (the script must succeed). */
async function listedLetter(
  sys: FaultSystem,
  topic: Topic,
  id: string,
): Promise<DeadLetter | undefined> {
  const listed = await deadLettersScript(sys, ['list', topic]);
  expect(listed.code, listed.stderr).to.equal(0);
  return listed.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as DeadLetter)
    .find((d) => d.id === id);
}

forEachRedisMode('faults: poison messages on each topic', function (mode) {
  this.timeout(240_000);
  const where = mode.name === 'cluster' ? ' (Redis Cluster)' : '';
  let system: FaultSystem | undefined;

  before(async function () {
    this.timeout(180_000);
    system = await startFaultSystem({
      redisUrl: mode.url(),
      settings: { CONSUMER_MAX_DELIVERIES: '3' },
    });
  });

  after(async () => {
    system?.stub.behave(undefined);
    await system?.close();
  });

  WORKERS.forEach(({ topic }, index) => {
    it(`when a message on ${topic} fails its schema, then it is dead-lettered at once with the failing path, and replay refuses it and keeps it`, async () => {
      const sys = system!;
      const stream = topicKeys(sys.prefix, topic, Number(sys.env.TOPIC_PARTITIONS)).partitions[0]!;
      // As a producer with a bug would write it: no schema check on the way in.
      const data = JSON.stringify({ source: 'buggy-producer', turn_id: `poison-${topic}` });
      await sys.redis.xadd(stream, '*', 'data', data);
      const letter = await waitFor(
        async () => (await deadLetters(sys, topic)).find((d) => d.data === data),
        { timeoutMs: 20_000, what: `the dead letter on ${topic}` },
      );

      const shown = await listedLetter(sys, topic, letter.id);
      expect(shown?.code).to.equal('BW_ERR_MESSAGE_INVALID');
      expect(shown?.reason).to.match(
        new RegExp(`^BW_ERR_MESSAGE_INVALID: .*/${MISSING[topic]} is required`),
      );
      expect(shown?.deliveries).to.equal(1);

      const replay = await deadLettersScript(sys, ['replay', topic, letter.id]);
      expect(replay.code).to.equal(2);
      expect(replay.stderr).to.contain(`refused ${letter.id}`);
      expect((await deadLetters(sys, topic)).map((d) => d.id)).to.include(letter.id);
      recordRow({
        fault: `invalid message on ${topic}${where}`,
        sent: 1,
        received: 0,
        lost: 0,
        duplicated: 0,
        reordered: 0,
        retriedPosts: 0,
        retriedBy: {},
        seconds: 0,
        extra: { 'dead letters': 1, 'replay refused': 1 },
      });
    });

    const poison = FIXABLE[topic];
    if (!poison) return;
    it(`when ${poison.cause} under a steady stream of other conversations, then the message ends in the ${topic} dead letters with its reason, the others go on, and once fixed dead-letters.sh replay brings it back and it is answered once`, async () => {
      const sys = system!;
      const chat = String(90_000 + index);
      const text = `poison.${topic}.${chat}`;
      const traffic = startTraffic(sys, { label: `poison-${topic}`, index: 10 + index });
      const repliesTo = () =>
        sys.stub.calls.filter((c) => c.chat === chat && c.text === `echo: ${text}`);
      let letter: DeadLetter | undefined;
      try {
        await poison.arrange(sys, chat);
        await postMessage(sys, { platform: 'telegram', chat }, text);
        letter = await waitFor(
          async () => (await deadLetters(sys, topic)).find((d) => d.data.includes(text)),
          { timeoutMs: 40_000, what: `the poison message in the ${topic} dead letters` },
        );
        const flowing = [...traffic.replies().values()].flat().length;
        await waitFor(() => [...traffic.replies().values()].flat().length > flowing + 3, {
          timeoutMs: 20_000,
          what: 'the other conversations to go on',
        });
        await traffic.stop();
      } finally {
        await traffic.stop(true).catch(() => undefined);
      }
      expect(repliesTo().filter((c) => c.delivered)).to.have.length(0);

      const shown = await listedLetter(sys, topic, letter.id);
      expect(shown?.code).to.equal(poison.code);
      expect(shown?.reason, shown?.reason).to.match(poison.reason);

      await poison.fix(sys);
      const replay = await deadLettersScript(sys, ['replay', topic, letter.id]);
      expect(replay.code, replay.stderr).to.equal(0);
      expect(JSON.parse(replay.stdout.trim())).to.include({ replayed: letter.id });
      await waitFor(() => repliesTo().some((c) => c.delivered), {
        timeoutMs: 30_000,
        what: 'the reply to the replayed message',
      });
      await traffic.settle();
      const row = traffic.measure(`poison on ${topic}, fixed, replayed${where}`);
      const delivered = repliesTo().filter((c) => c.delivered).length;
      recordRow({
        ...row,
        sent: row.sent + 1,
        received: row.received + delivered,
        duplicated: row.duplicated + Math.max(0, delivered - 1),
        extra: { 'dead letters': 1, replayed: 1 },
      });
      expect(delivered, 'the replayed message is answered once').to.equal(1);
      expect(await deadLetters(sys, topic)).to.satisfy((all: DeadLetter[]) =>
        all.every((d) => d.id !== letter.id),
      );
      await expectDelivered(sys, traffic, row);
    });
  });
});
