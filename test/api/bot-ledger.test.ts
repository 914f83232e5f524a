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
import { topicKeys } from '../../src/shared/bus/topics.ts';
import { createRedis, type Redis } from '../../src/shared/redis.ts';
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
 * The edge's per-bot ledger (src/shared/bot-turns.ts): one script trims, counts and enters a
 * callback's turns before they are published, and what is then refused or not published is taken
 * out again, so the ledger holds exactly the turns the edge published.
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

  it('when the ledger leaves room but parked replies fill it, then the callback is refused and the turn the script entered is taken out again', async () => {
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
});
