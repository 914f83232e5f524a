import { expect } from 'chai';
import nock from 'nock';
import { ensureGroups } from '../../src/shared/bus/group-commands.ts';
import { topicKeys } from '../../src/shared/bus/topics.ts';
import { waitFor } from '../support/services.ts';
import { createTelegramBot, startTestApi, topicMessages, type TestApi } from '../support/api.ts';

describe('edge backpressure (EDGE_MAX_BACKLOG)', () => {
  let t: TestApi;
  let tg: { appId: string; secret: string };
  let streams: readonly string[] = [];

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi({ EDGE_MAX_BACKLOG: '3' });
    tg = await createTelegramBot(t, { name: 'tg' });
    // The channel group exists (as once a channel process started) but nobody reads it.
    streams = topicKeys(t.prefix, 'channel', t.config.stream.partitions).partitions;
    await ensureGroups(t.redis, streams, 'channel');
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  const say = (updateId: number) =>
    t.call('POST', `/v2/callback/telegram/${tg.appId}`, {
      auth: false,
      headers: { 'x-telegram-bot-api-secret-token': tg.secret },
      body: {
        update_id: updateId,
        message: {
          message_id: updateId,
          date: 1,
          chat: { id: 42, type: 'private' },
          from: { id: 42 },
          text: `m${updateId}`,
        },
      },
    });

  it('when more messages wait than the limit, then callbacks get 503 with Retry-After and publish nothing; once drained, they are accepted again', async () => {
    for (let id = 1; id <= 4; id += 1) expect((await say(id)).status).to.equal(200);
    // Until the gauge's next sample (every 250 ms) callbacks still go through.
    let next = 10;
    let accepted = 4;
    const refused = await waitFor(
      async () => {
        const r = await say((next += 1));
        if (r.status === 200) accepted += 1;
        return r.status === 503 ? r : undefined;
      },
      { what: 'a refusal', timeoutMs: 5000 },
    );
    expect(refused.json).to.deep.equal({
      error: { code: 'BW_ERR_OVERLOADED', message: 'BW_ERR_OVERLOADED' },
    });
    const again = await fetch(`${t.url}/v2/callback/telegram/${tg.appId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': tg.secret,
      },
      body: JSON.stringify({
        update_id: 101,
        message: { message_id: 101, date: 1, chat: { id: 42, type: 'private' }, text: 'x' },
      }),
    });
    expect(again.status).to.equal(503);
    expect(again.headers.get('retry-after')).to.equal('1');
    expect((await topicMessages(t.redis, t.prefix, 'channel')).length).to.equal(accepted);

    // The group catches up (as a consumer would): the backlog drains and callbacks are accepted.
    for (const stream of streams) await t.redis.call('XGROUP', 'SETID', stream, 'channel', '$');
    await waitFor(async () => (await say((next += 1))).status === 200, {
      what: 'acceptance',
      timeoutMs: 5000,
    });
    const texts = (await topicMessages(t.redis, t.prefix, 'channel')).map(
      (m: { bot_input: { update: { message: { text: string } } } }) =>
        m.bot_input.update.message.text,
    );
    expect(texts).to.include(`m${next}`);
  });
});
