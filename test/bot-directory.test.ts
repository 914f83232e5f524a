/**
 * The bot directory against real Postgres and Redis, when its view lags the database: a channel
 * added to a known bot before this directory heard of it, and two reloads of one bot answered out
 * of order.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { BotDirectory } from '../src/shared/bots/directory.ts';
import { BotStore } from '../src/shared/bots/store.ts';
import type { BotRecord } from '../src/shared/bots/types.ts';
import type { Redis } from '../src/shared/redis.ts';
import { capturingLogger } from './support/logs.ts';
import {
  connectRedis,
  createTestSchema,
  dropPrefix,
  uniquePrefix,
  type TestSchema,
} from './support/services.ts';

const TELEGRAM = {
  type: 'telegram' as const,
  details: { bot_token: '42:directory-token-aaaaaaaaaaaaaaaaaa' },
};

/** A store whose reads of a bot can be held back after they read, as a slow answer would be. */
class HeldStore extends BotStore {
  hold: Promise<void> | undefined;

  override async getBot(appId: string): Promise<BotRecord | undefined> {
    const bot = await super.getBot(appId);
    const hold = this.hold;
    this.hold = undefined;
    if (hold) await hold;
    return bot;
  }
}

describe('bot directory: a view that lags the database', function () {
  this.timeout(30_000);
  let schema: TestSchema;
  let redis: Redis;
  let prefix: string;
  let store: HeldStore;
  let directory: BotDirectory;

  beforeEach(async () => {
    schema = await createTestSchema();
    redis = connectRedis();
    prefix = uniquePrefix();
    store = new HeldStore({ db: schema.db, credentialsKey: randomBytes(32) });
    directory = new BotDirectory({
      store,
      redis,
      prefix,
      logger: capturingLogger({ component: 'test' }).logger,
    });
    await directory.start();
  });

  afterEach(async () => {
    await directory.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
    await schema.drop();
  });

  it('when a channel is added to a bot the directory already holds and no notification reached it yet, then channelOf finds the channel in the database', async () => {
    const bot = await store.createBot({ name: 'lagging', flow: {}, channel: TELEGRAM });
    await directory.reload(bot.appId);
    const web = await store.addChannel(bot.appId, {
      type: 'web',
      details: { allowed_origins: [] },
    });

    const found = await directory.channelOf(bot.appId, web.id);
    expect(found?.bot.appId).to.equal(bot.appId);
    expect(found?.channel.id).to.equal(web.id);
    expect((await directory.byAppId(bot.appId))?.channels.map((c) => c.type)).to.have.members([
      'telegram',
      'web',
    ]);
  });

  it('when a channel does not exist, then channelOf answers undefined', async () => {
    const bot = await store.createBot({ name: 'one channel', flow: {}, channel: TELEGRAM });
    expect(await directory.channelOf(bot.appId, bot.channels[0]!.id)).to.not.equal(undefined);
    expect(await directory.channelOf(bot.appId, '00000000-0000-4000-8000-000000000000')).to.equal(
      undefined,
    );
  });

  it('when an older reload of a bot finishes after a newer one, then the view keeps the newer', async () => {
    const bot = await store.createBot({ name: 'two notifications', flow: {}, channel: TELEGRAM });
    let release!: () => void;
    store.hold = new Promise<void>((resolve) => (release = resolve));
    // The first notification's reload reads the bot before the web channel exists, and is slow.
    const older = directory.reload(bot.appId);
    while (store.hold !== undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    await store.addChannel(bot.appId, { type: 'web', details: { allowed_origins: [] } });
    await directory.reload(bot.appId);
    release();
    await older;

    const view = await directory.byAppId(bot.appId);
    expect(view?.channels.map((c) => c.type)).to.have.members(['telegram', 'web']);
  });
});
