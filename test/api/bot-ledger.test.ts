import { expect } from 'chai';
import nock from 'nock';
import { Breaker, BREAKER_SCRIPTS } from '../../src/channel/breaker.ts';
import {
  admitTurns,
  BOT_TURN_SCRIPTS,
  botTurnsKey,
  turnsInFlight,
} from '../../src/shared/bot-turns.ts';
import { ensureGroups } from '../../src/shared/bus/group-commands.ts';
import { Producer } from '../../src/shared/bus/producer.ts';
import { topicKeys } from '../../src/shared/bus/topics.ts';
import { createRedis, type Redis } from '../../src/shared/redis.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';
import { REDIS_URL } from '../support/services.ts';
import {
  createTelegramBot,
  postTelegramUpdate,
  startTestApi,
  telegramText,
  topicMessages,
  type TelegramTestBot,
  type TestApi,
} from '../support/api.ts';

/**
 * The edge's per-bot ledger (src/shared/bot-turns.ts). On one Redis server the check, the publish
 * and the entry of the new turns are one script (`Producer.publishOnceAdmitted`); on a cluster one
 * script trims, counts and enters a callback's turns before they are published, and what is then
 * refused or not published is taken out again (test/edge-cluster.test.ts). Either way the ledger
 * holds exactly the turns the edge published.
 */
describe('edge turn ledger (EDGE_MAX_BOT_BACKLOG)', () => {
  let t: TestApi;
  let redis: Redis;
  let bot: TelegramTestBot;
  let update = 0;

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ EDGE_MAX_BOT_BACKLOG: '2' });
    // Nobody reads the channel topic, so no turn is ever finished.
    const streams = topicKeys(t.prefix, 'channel', t.config.stream.partitions).partitions;
    await ensureGroups(t.redis, streams, 'channel');
    redis = createRedis(REDIS_URL, {
      name: 'botwire-test',
      scripts: { ...BREAKER_SCRIPTS, ...BOT_TURN_SCRIPTS },
    });
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    redis.disconnect();
    await t.stop();
  });

  beforeEach(async () => {
    bot = await createTelegramBot(t, { name: `ledger ${(update += 100)}` });
  });

  const say = (updateId: number) =>
    postTelegramUpdate(t, bot.appId, bot.secret, telegramText(42, updateId, `m${updateId}`));
  const ledger = () => redis.zrange(botTurnsKey(t.prefix, bot.appId), '0', '-1');
  const publishedTurns = async () =>
    (await topicMessages(t.redis, t.prefix, 'channel'))
      .filter((m: { bot_input: { app_id: string } }) => m.bot_input.app_id === bot.appId)
      .map((m: { turn_id: string }) => m.turn_id)
      .sort();

  it('when a platform sends the same update twice, then the ledger holds its turn once', async () => {
    expect((await say(update + 1)).status).to.equal(200);
    expect((await say(update + 1)).status).to.equal(200);
    const turns = await publishedTurns();
    expect(turns).to.have.length(1);
    expect((await ledger()).sort()).to.deep.equal(turns);
  });

  it('when a bot is over its limit, then its callback is refused and the ledger holds only the published turns', async () => {
    for (let i = 1; i <= 3; i += 1) expect((await say(update + i)).status).to.equal(200);
    const refused = await say(update + 4);
    expect(refused.status).to.equal(503);
    expect(refused.json.error.code).to.equal('BW_ERR_BOT_OVERLOADED');
    const turns = await publishedTurns();
    expect(turns).to.have.length(3);
    expect((await ledger()).sort()).to.deep.equal(turns);
  });

  it('when the ledger leaves room but parked replies fill it, then the callback is refused and no turn stays entered', async () => {
    expect((await say(update + 1)).status).to.equal(200);
    // Two replies parked behind the channel's open breaker, as channel parks them.
    const breaker = new Breaker({ redis, prefix: t.prefix, openMs: 60_000, openMaxMs: 60_000 });
    for (let i = 0; i < 5; i += 1) await breaker.fail(bot.channelId);
    for (const turn of ['p1', 'p2']) await breaker.admit(bot.channelId, turn, '{}');
    const refused = await say(update + 2);
    expect(refused.status).to.equal(503);
    expect(refused.json.error.code).to.equal('BW_ERR_BOT_OVERLOADED');
    expect((await ledger()).sort()).to.deep.equal(await publishedTurns());
    expect(await ledger()).to.have.length(1);
  });

  it('trims turns older than the horizon, counts the rest, and enters new ones only while the count is at most the limit', async () => {
    const appId = `unit-${update}`;
    const now = Date.now();
    expect(await admitTurns(redis, t.prefix, appId, ['old'], 1, 1000, now - 5000)).to.equal(0);
    // 'old' is past the horizon by now: trimmed, so the count is 0 and both are entered.
    expect(await admitTurns(redis, t.prefix, appId, ['a', 'b'], 1, 1000, now)).to.equal(0);
    // 2 > 1: counted, not entered.
    expect(await admitTurns(redis, t.prefix, appId, ['c'], 1, 1000, now)).to.equal(2);
    expect((await redis.zrange(botTurnsKey(t.prefix, appId), '0', '-1')).sort()).to.deep.equal([
      'a',
      'b',
    ]);
    expect(await turnsInFlight(redis, t.prefix, appId, 1000, now)).to.equal(2);
    expect(await redis.pttl(botTurnsKey(t.prefix, appId))).to.be.within(1, 1000);
  });

  describe('the publish with its admission in one script (Producer.publishOnceAdmitted)', () => {
    const MESSAGE = { collection_name: 'faq', files: ['a.pdf'], ordering_key: 'k' };
    const partitions = 4;
    let producer: Producer;
    let streams: readonly string[];
    let keys: { ledger: string; other: string; parked: string };

    beforeEach(async () => {
      producer = new Producer({
        redis,
        schemas: new SchemaRegistry(),
        prefix: t.prefix,
        maxLen: 1000,
        partitions,
      });
      streams = topicKeys(t.prefix, 'indexer', partitions).partitions;
      keys = {
        ledger: `${t.prefix}:{unit:${update}}:a`,
        other: `${t.prefix}:{unit:${update}}:b`,
        parked: `${t.prefix}:{unit:${update}}:parked`,
      };
      before = await entries();
    });

    let before = 0;
    const entries = async () =>
      (await Promise.all(streams.map((key) => redis.xlen(key)))).reduce((a, b) => a + b, 0);
    // What this test published (the streams are the suite's).
    const published = async () => (await entries()) - before;
    /** Publishes `ids`, entering each as `members` (its id unless given) in its ledger. */
    const send = (
      ids: string[],
      max: number,
      now = Date.now(),
      horizonMs = 60_000,
      members = ids,
    ) =>
      producer.publishOnceAdmitted(
        'indexer',
        ids.map((id) => ({ id: `${update}:${id}`, message: MESSAGE })),
        60,
        {
          ledgers: [
            { key: keys.ledger, counted: [keys.parked] },
            { key: keys.other, counted: [] },
          ],
          // The first message is the first ledger's, the others the second's.
          members: members.map((member, i) => ({ ledger: i === 0 ? 0 : 1, member })),
          max,
          horizonMs,
          now,
        },
      );

    it('when the ledgers have room, then the new messages are published and entered in their ledgers, and a repeat enters nothing', async () => {
      const first = await send(['m1', 'm2'], 5);
      expect('ids' in first && first.ids.every((id) => typeof id === 'string')).to.equal(true);
      expect(await redis.zrange(keys.ledger, '0', '-1')).to.deep.equal(['m1']);
      expect(await redis.zrange(keys.other, '0', '-1')).to.deep.equal(['m2']);
      expect(await redis.pttl(keys.ledger)).to.be.within(1, 60_000);

      // m1 again (as a retry naming another turn), beside a new one: the repeat is a duplicate
      // and enters nothing.
      const again = await send(['m1', 'm3'], 5, Date.now(), 60_000, ['m1-retry', 'm3']);
      expect('ids' in again && again.ids[0]).to.equal(null);
      expect('ids' in again && typeof again.ids[1]).to.equal('string');
      expect(await published()).to.equal(3);
      expect(await redis.zrange(keys.ledger, '0', '-1')).to.deep.equal(['m1']);
      expect((await redis.zrange(keys.other, '0', '-1')).sort()).to.deep.equal(['m2', 'm3']);
      expect(await redis.pttl(keys.other)).to.be.within(1, 60_000);
    });

    it('when a ledger with its counted streams holds more than the limit, then the call is refused with that ledger and writes nothing, so the same ids publish once room is made', async () => {
      await redis.zadd(keys.other, Date.now(), 'w1', Date.now(), 'w2');
      await redis.xadd(keys.parked, '*', 'data', '{}');
      await redis.zadd(keys.ledger, Date.now(), 'w3');
      // The first ledger holds 1 + 1 parked = 2, the second 2: both at the limit, admitted.
      expect('ids' in (await send(['x0'], 2))).to.equal(true);
      // Now the first holds 3 with its parked reply: refused, though the second has room.
      expect(await send(['y0'], 2)).to.deep.equal({ refused: 0 });
      await redis.zadd(keys.other, Date.now(), 'w4', Date.now(), 'w5');
      expect(await send(['y0', 'y1'], 3)).to.deep.equal({ refused: 1 });
      expect(await published()).to.equal(1);
      expect(await redis.zrange(keys.ledger, '0', '-1')).to.not.include('y0');
      expect(await redis.zrange(keys.other, '0', '-1')).to.not.include('y1');

      // Refused calls left no marker: with room, the same ids are new.
      const later = await send(['y0', 'y1'], 10);
      expect('ids' in later && later.ids.every((id) => typeof id === 'string')).to.equal(true);
      expect(await published()).to.equal(3);
    });

    it('when members are older than the horizon, then they are trimmed before the count', async () => {
      const now = Date.now();
      await redis.zadd(keys.ledger, now - 5000, 'old1', now - 5000, 'old2');
      // Within a horizon of a minute both count: 2 > 1.
      expect(await send(['n1'], 1, now, 60_000)).to.deep.equal({ refused: 0 });
      // Within one of a second neither does.
      expect('ids' in (await send(['n1'], 1, now, 1000))).to.equal(true);
      expect(await redis.zrange(keys.ledger, '0', '-1')).to.deep.equal(['n1']);
      expect(await redis.pttl(keys.ledger)).to.be.within(1, 1000);
    });
  });
});
