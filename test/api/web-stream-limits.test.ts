/**
 * How one api process shares its web event streams: per visitor, fairly between bots, and never
 * with a bot that is gone.
 */
import { expect } from 'chai';
import nock from 'nock';
import { startTestApi, type TestApi } from '../support/api.ts';
import { waitFor } from '../support/services.ts';
import { openSse, type SseStream } from '../support/sse.ts';
import { createWebBot, eventsUrl, startSession } from '../support/web.ts';

describe('web event stream limits', function () {
  this.timeout(30_000);
  let t: TestApi;
  const open: SseStream[] = [];

  // An edge per test: each starts with every slot free.
  beforeEach(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ WEB_MAX_EVENT_STREAMS: '6', WEB_MAX_STREAMS_PER_VISITOR: '2' });
  });

  afterEach(async () => {
    for (const client of open.splice(0)) client.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  const stream = async (appId: string, token: string): Promise<SseStream> => {
    const client = await openSse(eventsUrl(t, appId, token), '');
    open.push(client);
    return client;
  };
  /** Two streams each of `visitors` new visitors of the bot, in the order opened. */
  const streamsOf = async (appId: string, visitors: number): Promise<SseStream[]> => {
    const opened: SseStream[] = [];
    for (let i = 0; i < visitors; i += 1) {
      const { token } = await startSession(t, appId);
      opened.push(await stream(appId, token), await stream(appId, token));
    }
    return opened;
  };
  /** Waits until the process serves `count` streams (the last test's are gone). */
  const serving = (count: number) =>
    waitFor(
      async () => {
        const metrics = await t.call('GET', '/metrics', { auth: false });
        return new RegExp(`^botwire_web_event_streams ${count}$`, 'm').test(metrics.text);
      },
      { what: `${count} streams served` },
    );

  it('when one visitor opens more streams than WEB_MAX_STREAMS_PER_VISITOR, then 429 BW_ERR_VISITOR_STREAMS, also with a renewed token, and another visitor still gets one', async () => {
    const { appId } = await createWebBot(t, { name: 'tabs' });
    const visitor = await startSession(t, appId);
    const renewed = await startSession(t, appId, visitor.token);
    const first = await Promise.all([stream(appId, visitor.token), stream(appId, renewed.token)]);
    expect(first.map((c) => c.status)).to.deep.equal([200, 200]);
    for (const token of [visitor.token, renewed.token]) {
      const third = await stream(appId, token);
      expect(third.status).to.equal(429);
      expect(third.json.error.code).to.equal('BW_ERR_VISITOR_STREAMS');
      expect(third.headers['retry-after']).to.equal('5');
    }
    const other = await stream(appId, (await startSession(t, appId)).token);
    expect(other.status).to.equal(200);
    first[0].close();
    await first[0].ended;
    await serving(2);
    expect((await stream(appId, visitor.token)).status).to.equal(200);
  });

  it("when one bot's visitors hold every stream of the process, then another bot's visitors still get streams, the first bot's newest end, and the first bot gets no more", async () => {
    const a = await createWebBot(t, { name: 'hog' });
    const b = await createWebBot(t, { name: 'neighbour' });
    const hog = await streamsOf(a.appId, 3);
    expect(hog.map((c) => c.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
    const refusedA = await stream(a.appId, (await startSession(t, a.appId)).token);
    expect(refusedA.status).to.equal(503);
    expect(refusedA.json.error.code).to.equal('BW_ERR_TOO_MANY_STREAMS');
    const b1 = await stream(b.appId, (await startSession(t, b.appId)).token);
    const b2 = await stream(b.appId, (await startSession(t, b.appId)).token);
    expect([b1.status, b2.status]).to.deep.equal([200, 200]);
    // The hog's two newest ended: A holds 4, B 2; B's third still fits (2 + 1 < 4) and ends
    // A's next newest; then both hold 3, and B's fourth is refused.
    await Promise.all([hog[5]!.ended, hog[4]!.ended]);
    const b3 = await stream(b.appId, (await startSession(t, b.appId)).token);
    expect(b3.status).to.equal(200);
    await hog[3]!.ended;
    const b4 = await stream(b.appId, (await startSession(t, b.appId)).token);
    expect(b4.status).to.equal(503);
  });

  it('when a bot is deleted, then its open streams end and their slots are free for other bots', async () => {
    const gone = await createWebBot(t, { name: 'gone' });
    const stays = await createWebBot(t, { name: 'stays' });
    const held = await streamsOf(gone.appId, 2);
    const kept = await stream(stays.appId, (await startSession(t, stays.appId)).token);
    expect([...held, kept].map((c) => c.status)).to.deep.equal([200, 200, 200, 200, 200]);
    const deleted = await t.call('DELETE', `/v2/bots/${gone.appId}`);
    expect(deleted.status).to.equal(204);
    let ended = 0;
    let keptEnded = false;
    void kept.ended.then(() => (keptEnded = true));
    for (const client of held) void client.ended.then(() => (ended += 1));
    await waitFor(() => ended === held.length, { what: "the deleted bot's streams ended" });
    await serving(1);
    const more = await Promise.all(
      [0, 1, 2, 3, 4].map(async () =>
        stream(stays.appId, (await startSession(t, stays.appId)).token),
      ),
    );
    expect(more.map((c) => c.status)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(keptEnded, 'the other bot’s stream is still open').to.equal(false);
  });
});
