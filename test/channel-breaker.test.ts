import { expect } from 'chai';
import { Breaker, BREAKER_SCRIPTS } from '../src/channel/breaker.ts';
import { Pacer, PACING_SCRIPTS } from '../src/channel/pacing.ts';
import { parkedKey, parkedReplies } from '../src/shared/bot-turns.ts';
import { createRedis, type Redis } from '../src/shared/redis.ts';
import { dropPrefix, REDIS_URL, uniquePrefix } from './support/services.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('channel circuit breaker and parking (Redis)', () => {
  let redis: Redis;
  const prefix = uniquePrefix();
  let n = 0;
  /** A fresh account per test, so tests share nothing. */
  const account = (): string => `acct-${(n += 1)}`;
  const breaker = (options: { failures?: number; openMs?: number; openMaxMs?: number } = {}) =>
    new Breaker({ redis, prefix, windowMs: 5000, openMs: 200, openMaxMs: 800, ...options });

  before(() => {
    redis = createRedis(REDIS_URL, {
      name: 'botwire-test',
      scripts: { ...BREAKER_SCRIPTS, ...PACING_SCRIPTS },
    });
  });

  after(async () => {
    await dropPrefix(redis, prefix);
    await redis.quit();
  });

  it('when an account has not failed, then a reply is to be sent, with no failures counted', async () => {
    const admission = await breaker().admit(account(), 't1', '{}');
    expect(admission).to.deep.equal({ parked: false, failures: 0 });
  });

  it('when fewer failures than the threshold happen, then the breaker stays closed and says how many', async () => {
    const b = breaker({ failures: 3 });
    const a = account();
    expect(await b.fail(a)).to.equal(false);
    expect(await b.fail(a)).to.equal(false);
    expect(await b.admit(a, 't1', '{}')).to.deep.equal({ parked: false, failures: 2 });
    expect(await b.openFor(a)).to.equal(0);
  });

  it('when the threshold is reached, then the breaker opens and every reply is parked, in order, and the account is indexed', async () => {
    const b = breaker({ failures: 2 });
    const a = account();
    await b.fail(a);
    expect(await b.fail(a)).to.equal(true);
    expect(await b.openFor(a)).to.be.within(1, 200);
    for (const turn of ['t1', 't2', 't3']) {
      expect(await b.admit(a, turn, JSON.stringify({ turn }))).to.deep.equal({ parked: true });
    }
    const parked = await b.peek(a, 10);
    expect(parked.map((e) => JSON.parse(e.data).turn)).to.deep.equal(['t1', 't2', 't3']);
    expect((await b.indexed()).map((i) => i.account)).to.include(a);
  });

  it('when the same turn is parked twice (a redelivery after a crash), then it is parked once', async () => {
    const b = breaker();
    const a = account();
    expect(await b.admit(a, 't1', '{"x":1}', true)).to.deep.equal({ parked: true });
    expect(await b.admit(a, 't1', '{"x":1}', true)).to.deep.equal({ parked: true });
    expect(await b.peek(a, 10)).to.have.length(1);
  });

  it('when the breaker has closed again but replies are still parked, then a new reply queues behind them', async () => {
    const b = breaker({ failures: 1, openMs: 50 });
    const a = account();
    await b.fail(a);
    await b.admit(a, 't1', '{}');
    await sleep(80);
    expect(await b.openFor(a)).to.equal(0);
    expect(await b.admit(a, 't2', '{}')).to.deep.equal({ parked: true });
    const parked = await b.peek(a, 10);
    await b.remove(
      a,
      parked.map((e) => e.id),
    );
    expect(await b.admit(a, 't3', '{}')).to.deep.equal({ parked: false, failures: 1 });
  });

  it('when a probe fails again, then the breaker reopens for twice as long, up to the longest time', async () => {
    const b = breaker({ failures: 1, openMs: 40, openMaxMs: 100 });
    const a = account();
    await b.fail(a);
    const waits: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      waits.push(await b.openFor(a));
      await sleep((waits[i] ?? 0) + 20);
      expect(await b.fail(a, 1)).to.equal(true);
    }
    waits.push(await b.openFor(a));
    expect(waits[0]).to.be.within(1, 40);
    expect(waits[1]).to.be.within(41, 80);
    expect(waits[2]).to.be.within(81, 100);
    expect(waits[3]).to.be.within(81, 100);
  });

  it('when a call succeeds, then the failures are forgotten', async () => {
    const b = breaker({ failures: 3 });
    const a = account();
    await b.fail(a);
    await b.fail(a);
    await b.succeeded(a);
    expect(await b.fail(a)).to.equal(false);
    expect(await b.admit(a, 't1', '{}')).to.deep.equal({ parked: false, failures: 1 });
  });

  it('when one holder has the drain lease, then another cannot take it until it is released', async () => {
    const b = breaker();
    const a = account();
    expect(await b.lease(a, 'p1', 5000)).to.equal(true);
    expect(await b.lease(a, 'p2', 5000)).to.equal(false);
    await b.release(a, 'p2');
    expect(await b.lease(a, 'p2', 5000)).to.equal(false);
    await b.release(a, 'p1');
    expect(await b.lease(a, 'p2', 5000)).to.equal(true);
  });

  it("when replies are parked for a bot's channel, then they count in the bot's backlog", async () => {
    const b = breaker();
    const a = account();
    await b.admit(a, 't1', '{}', true);
    await b.admit(a, 't2', '{}', true);
    expect(await redis.xlen(parkedKey(prefix, a))).to.equal(2);
    expect(await parkedReplies(redis, prefix, [a])).to.equal(2);
  });

  describe("a reply's first slot reserved with its admission (one Redis server)", () => {
    const chatPace = { intervalMs: 1000, burst: 3 };
    /** A chat's pace keys, in the account's hash tag as a bot channel's are. */
    const paces = (a: string): [string, typeof chatPace][] => [
      [`${prefix}:pace:{tg:${a}}:42`, chatPace],
    ];

    it('when a reply is admitted to be sent, then it holds a slot of its pace, counted as the pacer counts', async () => {
      const b = breaker();
      const a = account();
      const pacer = new Pacer(redis);
      const before = Date.now();
      const admissions = [];
      for (const turn of ['t1', 't2', 't3']) {
        admissions.push(await b.admit(a, turn, '{}', false, paces(a)));
      }
      for (const admission of admissions) {
        expect(admission).to.include({ parked: false, failures: 0 });
        expect(admission)
          .to.have.property('slotDueAt')
          .within(before - 1000, Date.now());
      }
      // The chat's burst of three is used: the next slot, the pacer's, is about an interval off.
      expect(await pacer.reserve(paces(a))).to.be.within(1, 1000);
      const fourth = await b.admit(a, 't4', '{}', false, paces(a));
      expect(fourth)
        .to.have.property('slotDueAt')
        .above(Date.now() + 1000);
    });

    it('when a reply is parked (the breaker open, or parked before), then it takes no slot', async () => {
      const b = breaker({ failures: 1 });
      const a = account();
      await b.fail(a);
      expect(await b.admit(a, 't1', '{}', false, paces(a))).to.deep.equal({ parked: true });
      expect(await b.admit(a, 't1', '{}', false, paces(a))).to.deep.equal({ parked: true });
      expect(await redis.exists(paces(a)[0]![0])).to.equal(0);
    });
  });
});
