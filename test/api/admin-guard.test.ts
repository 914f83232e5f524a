import { expect } from 'chai';
import { request } from 'node:http';
import { startTestApi, type TestApi } from '../support/api.ts';

/** GET `path` from the local address `from`, with `authorization` when given. */
function getFrom(
  t: TestApi,
  from: string,
  path: string,
  authorization?: string,
): Promise<{ status: number; headers: Record<string, unknown>; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${t.url}${path}`,
      { localAddress: from, headers: authorization ? { authorization } : {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('admin API guard: security headers and the auth failure limit', () => {
  let t: TestApi;

  before(async () => {
    t = await startTestApi({ ADMIN_AUTH_MAX_FAILURES: '3', ADMIN_AUTH_WINDOW_S: '60' });
  });

  after(async () => {
    await t.stop();
  });

  it('when an admin route answers, success or error, then it carries no-store, nosniff, HSTS, Referrer-Policy and frame denial', async () => {
    const good = await getFrom(t, '127.0.0.3', '/v2/bots', `Bearer ${t.adminKey}`);
    const missing = await getFrom(
      t,
      '127.0.0.3',
      '/v2/bots/00000000-0000-4000-8000-000000000000',
      `Bearer ${t.adminKey}`,
    );
    expect(good.status).to.equal(200);
    expect(missing.status).to.equal(404);
    for (const { headers } of [good, missing]) {
      expect(headers).to.include({
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'content-security-policy': "frame-ancestors 'none'",
      });
      // The test edge's PUBLIC_BASE_URL is https.
      expect(headers['strict-transport-security']).to.match(/^max-age=\d+$/);
    }
  });

  it('when an address fails admin auth past the limit, then it gets 429 BW_ERR_AUTH_RATE_LIMITED with Retry-After, even with the right key, while another address is served', async () => {
    const attacker = '127.0.0.1';
    for (let i = 0; i < 3; i += 1) {
      const wrong = await getFrom(t, attacker, '/v2/bots', 'Bearer wrong-key');
      expect(wrong.status).to.equal(401);
      expect(wrong.json.error.code).to.equal('BW_ERR_UNAUTHORIZED');
    }
    const limited = await getFrom(t, attacker, '/v2/bots', 'Bearer wrong-key');
    expect([limited.status, limited.json.error.code]).to.deep.equal([
      429,
      'BW_ERR_AUTH_RATE_LIMITED',
    ]);
    expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
    expect(limited.headers['cache-control']).to.equal('no-store');
    const rightKey = await getFrom(t, attacker, '/v2/bots', `Bearer ${t.adminKey}`);
    expect([rightKey.status, rightKey.json.error.code]).to.deep.equal([
      429,
      'BW_ERR_AUTH_RATE_LIMITED',
    ]);
    const other = await getFrom(t, '127.0.0.2', '/v2/bots', `Bearer ${t.adminKey}`);
    expect(other.status).to.equal(200);
    // Kept in Redis under the test prefix, with the address as hash tag.
    const key = `${t.prefix}:auth-fail:{${attacker}}`;
    expect(Number(await t.redis.get(key))).to.be.at.least(3);
    expect(await t.redis.ttl(key)).to.be.within(1, 60);
  });
});
