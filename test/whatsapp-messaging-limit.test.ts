import { expect } from 'chai';
import {
  MessagingLimit,
  messagingLimitOf,
  planDays,
} from '../src/shared/whatsapp-messaging-limit.ts';
import type { Redis } from '../src/shared/redis.ts';
import { connectRedis, dropPrefix, uniquePrefix } from './support/services.ts';

const DAY = 24 * 3600 * 1000;

describe('WhatsApp messaging limit (unique users a number starts conversations with in 24 hours)', () => {
  let redis: Redis;
  const prefix = uniquePrefix();

  before(() => {
    redis = connectRedis();
  });

  after(async () => {
    await dropPrefix(redis, prefix);
    await redis.quit();
  });

  it('when a number reached its limit, then a new user waits about a day, a user counted already goes at once, room given back is room again, and another number is not held', async () => {
    const limit = new MessagingLimit(redis, prefix);
    const fresh = { waitMs: 0, taken: true };
    const counted = { waitMs: 0, taken: false };
    expect(await limit.take('111', 'ana', 2)).to.deep.equal(fresh);
    expect(await limit.take('111', 'bo', 2)).to.deep.equal(fresh);
    const full = await limit.take('111', 'cy', 2);
    expect(full.taken).to.equal(false);
    expect(full.waitMs).to.be.within(DAY - 5000, DAY);
    // Ana counts once in the 24 hours: a second template to her takes no room.
    expect(await limit.take('111', 'ana', 2)).to.deep.equal(counted);
    expect(await limit.take('222', 'cy', 2)).to.deep.equal(fresh);
    expect(await limit.usage('111', 2)).to.deep.equal({ limit: 2, used: 2 });
    // Nothing was sent to Bo after all: his room goes to Cy.
    await limit.release('111', 'bo');
    expect(await limit.take('111', 'cy', 2)).to.deep.equal(fresh);
    // Unlimited takes no room and never waits.
    expect(await limit.take('111', 'dee', null)).to.deep.equal(counted);
    // Counted a day before a start two days ahead: gone from the 24 hours by then.
    expect((await limit.usage('111', 2, new Date(Date.now() + 2 * DAY))).used).to.equal(0);
  });

  it('when a number holds more users than a lower limit set since, then a new user waits until enough have left, not until the oldest has', async () => {
    const limit = new MessagingLimit(redis, prefix);
    const key = `${prefix}:wa-started:{wa:333}`;
    const now = Date.now();
    // Three users counted 20, 10 and 1 hours ago; the limit is now 2.
    await redis.zadd(key, now - 20 * 3600_000, 'a', now - 10 * 3600_000, 'b', now - 3600_000, 'c');
    const { waitMs } = await limit.take('333', 'd', 2);
    // Room comes when b leaves (in 14 hours), not when a does (in 4).
    expect(waitMs).to.be.within(14 * 3600_000 - 5000, 14 * 3600_000 + 1000);
  });

  it('when a broadcast starts more conversations than the room left, then it takes the room today and the limit each following day', () => {
    const start = new Date('2026-12-01T09:00:00Z');
    const days = planDays({ limit: 1000, used: 400 }, 2500, start);
    expect(days).to.deep.equal([
      { from: '2026-12-01T09:00:00.000Z', users: 600 },
      { from: '2026-12-02T09:00:00.000Z', users: 1000 },
      { from: '2026-12-03T09:00:00.000Z', users: 900 },
    ]);
    // No room today: it starts tomorrow.
    expect(planDays({ limit: 250, used: 250 }, 10, start)).to.deep.equal([
      { from: '2026-12-02T09:00:00.000Z', users: 10 },
    ]);
    expect(planDays({ limit: null, used: 0 }, 5000, start)).to.deep.equal([
      { from: '2026-12-01T09:00:00.000Z', users: 5000 },
    ]);
    expect(messagingLimitOf({ phone_number_id: '1', access_token: 't' })).to.equal(250);
    expect(
      messagingLimitOf({ phone_number_id: '1', access_token: 't', messaging_limit: 'unlimited' }),
    ).to.equal(null);
  });
});
