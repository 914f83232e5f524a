/** ./scripts/set-webhook.sh from the command line, against a stand-in Telegram on loopback. */
import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from './support/api.ts';
import { envOf } from './support/components.ts';
import { startPlatformStub, type PlatformStub } from './support/platform-stub.ts';
import { freePort } from './support/private-services.ts';
import { run } from './support/run.ts';

describe('./scripts/set-webhook.sh', function () {
  this.timeout(60_000);
  let stub: PlatformStub;
  let t: TestApi;
  let appId = '';

  before(async () => {
    stub = await startPlatformStub();
    t = await startTestApi({ TELEGRAM_API_URL: stub.url });
    const created = await t.call('POST', '/v2/bots', {
      body: { name: 'cli', channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
    });
    appId = created.json.app_id;
  });

  after(async () => {
    await t?.stop();
    await stub?.close();
  });

  const setWebhook = (...args: string[]) =>
    run('bash', ['scripts/set-webhook.sh', ...args], { env: envOf(t.env) });

  it('when given a bot, then setWebhook gets the callback url and a secret, and one JSON line reports it without the token', async () => {
    const result = await setWebhook(appId);
    expect(result.code, result.stderr).to.equal(0);
    const call = stub.calls.find((c) => c.method === 'setWebhook');
    expect(call?.body.url).to.equal(`https://bots.example.test/v2/callback/telegram/${appId}`);
    expect(String(call?.body.secret_token)).to.match(/^[A-Za-z0-9_-]{32,}$/);
    expect(JSON.parse(result.stdout.trim())).to.deep.include({ ok: true, app_id: appId });
    expect(result.stdout + result.stderr).not.to.contain(TELEGRAM_TOKEN);
  });

  it('when the bot is unknown, then exit 2 with BW_ERR_UNKNOWN_BOT', async () => {
    const result = await setWebhook('6f1c1f8e-0000-4000-8000-000000000000');
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('BW_ERR_UNKNOWN_BOT');
  });

  it('when Telegram cannot be reached, then exit 3 with BW_ERR_UPSTREAM naming the cause (ECONNREFUSED) and no token', async () => {
    const down = await run('bash', ['scripts/set-webhook.sh', appId], {
      // A closed port (not 9: fetch refuses the "bad ports" before connecting, with no code).
      env: envOf({ ...t.env, TELEGRAM_API_URL: `http://127.0.0.1:${await freePort()}` }),
    });
    expect(down.code, down.stderr).to.equal(3);
    expect(down.stderr).to.contain(
      'error: BW_ERR_UPSTREAM: Telegram could not be reached (ECONNREFUSED)',
      down.stderr,
    );
    expect(down.stdout + down.stderr).not.to.contain(TELEGRAM_TOKEN);
  });

  it('when something answers in Telegram\'s place without JSON, then exit 3 with BW_ERR_UPSTREAM naming the HTTP status, not "could not be reached"', async () => {
    const wrong = createServer((_req, res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>no</h1>'),
    );
    await new Promise<void>((resolve) => wrong.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = wrong.address() as AddressInfo;
      const result = await run('bash', ['scripts/set-webhook.sh', appId], {
        env: envOf({ ...t.env, TELEGRAM_API_URL: `http://127.0.0.1:${port}` }),
      });
      expect(result.code, result.stderr).to.equal(3);
      expect(result.stderr).to.contain(
        'error: BW_ERR_UPSTREAM: Telegram answered HTTP 404 without JSON',
        result.stderr,
      );
      expect(result.stdout + result.stderr).not.to.contain(TELEGRAM_TOKEN);
    } finally {
      wrong.close();
    }
  });
});
