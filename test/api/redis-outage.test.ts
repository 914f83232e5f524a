import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { start, type Running } from '../support/run.ts';
import { startTestApi, topicMessages, whatsappPayload, type TestApi } from '../support/api.ts';
import { freePort } from '../support/private-services.ts';
import { waitFor } from '../support/services.ts';
import { createRedis, type Redis } from '../../src/shared/redis.ts';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe('the edge while Redis is down', function () {
  this.timeout(60_000);
  let port: number;
  let server: Running | undefined;
  let t: TestApi;
  let redis: Redis;
  const number = '5550001';

  const startRedis = async (): Promise<void> => {
    server = start('redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    await waitFor(() => server!.stdout().includes('Ready to accept connections'), {
      what: 'redis-server ready',
    });
  };
  const post = (id: string) =>
    t.call('POST', '/callback', {
      auth: false,
      body: whatsappPayload(number, [{ id, body: 'hi' }]),
    });

  before(async function () {
    // This test runs its own redis-server so it can stop it; scripts/test.sh installs one where it
    // can. Without the binary the outage cannot be staged here, so the test says so and stops.
    if (!hasRedisServer) this.skip();
    port = await freePort();
    await startRedis();
    t = await startTestApi({ REDIS_URL: `redis://127.0.0.1:${port}` });
    redis = createRedis(`redis://127.0.0.1:${port}`);
    redis.on('error', () => undefined); // refused while the test holds Redis down
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'wa',
        channel: { type: 'whatsapp', details: { phone_number_id: number, access_token: 'x' } },
      },
    });
    expect(created.status).to.equal(201);
  });

  after(async () => {
    redis?.disconnect();
    // Not t.stop(): its key clean-up would wait on a Redis a failed test left down.
    t?.redis.disconnect();
    await t?.api.close();
    await t?.schema.drop();
    server?.child.kill('SIGKILL');
  });

  it('when Redis stops, then callbacks get 503 BW_ERR_UNAVAILABLE and readyz 503; when it is back, then callbacks are accepted again', async () => {
    expect((await post('wamid.before')).status).to.equal(200);
    server!.child.kill('SIGKILL');
    await server!.exited;

    const during = await post('wamid.during');
    expect(during.status).to.equal(503);
    expect(during.json.error.code).to.equal('BW_ERR_UNAVAILABLE');
    const ready = await t.call('GET', '/readyz', { auth: false });
    expect(ready.status).to.equal(503);
    expect(ready.json.checks).to.deep.equal({ redis: 'unreachable', postgres: 'ok' });

    await startRedis(); // a Redis without persistence: it comes back empty
    const after = await waitFor(
      async () => {
        const response = await post('wamid.during');
        return response.status === 200 ? response : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the edge to accept again' },
    );
    expect(after.json).to.deep.equal({ ok: true, accepted: 1, duplicates: 0 });
    const messages = await topicMessages(redis, t.prefix, 'channel');
    expect(messages.map((m) => m.bot_input.message.id)).to.deep.equal(['wamid.during']);
  });
});
