/**
 * Console sessions: the admin key exchanged for a cookie, the cookie accepted by every admin route,
 * the Origin rule for state-changing cookie requests, sign-out ending the session in Redis, and
 * wrong keys counted by the admin auth limit.
 */
import { expect } from 'chai';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from '../support/api.ts';

/** The `bw_session=<token>` pair of a Set-Cookie header. */
function cookieOf(setCookie: string | null): string {
  const pair = (setCookie ?? '').split(';')[0] ?? '';
  expect(pair).to.match(/^bw_session=[A-Za-z0-9_-]{43}$/);
  return pair;
}

describe('console session auth', function () {
  this.timeout(60_000);
  let t: TestApi;
  const origin = 'https://bots.example.test';

  async function signIn(key: string): Promise<Response> {
    return fetch(`${t.url}/v2/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ key }),
    });
  }
  async function withCookie(method: string, path: string, cookie: string, extra = {}) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { cookie, ...extra },
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined, response };
  }
  const sessionKeys = async () => t.redis.keys(`${t.prefix}:session:*`);

  before(async () => {
    t = await startTestApi({ ADMIN_AUTH_MAX_FAILURES: '3', CONSOLE_SESSION_TTL_S: '600' });
  });

  after(async () => {
    await t.stop();
  });

  it('when the right key is posted, then 204 with an HttpOnly SameSite=Strict Secure cookie whose session lives in Redis with the configured TTL', async () => {
    const response = await signIn(t.adminKey);
    expect(response.status).to.equal(204);
    const header = response.headers.get('set-cookie') ?? '';
    cookieOf(header);
    expect(header).to.include('HttpOnly').and.include('SameSite=Strict').and.include('Path=/');
    // The test edge's PUBLIC_BASE_URL is https.
    expect(header).to.include('Secure').and.include('Max-Age=600');
    const keys = await sessionKeys();
    expect(keys).to.have.length(1);
    const ttl = await t.redis.ttl(keys[0]!);
    expect(ttl).to.be.within(590, 600);
    // The key is the token's digest: the cookie itself is not in Redis.
    expect(keys[0]).to.not.include(cookieOf(header).slice('bw_session='.length));
    await t.redis.del(...keys);
  });

  it('when signed in, then GET /v2/session names the admin-key actor and its end, and admin routes answer with the cookie', async () => {
    const cookie = cookieOf((await signIn(t.adminKey)).headers.get('set-cookie'));
    const session = await withCookie('GET', '/v2/session', cookie);
    expect(session.status).to.equal(200);
    expect(session.json.actor).to.equal('admin-key');
    const end = Date.parse(session.json.expires_at);
    expect(end - Date.now()).to.be.within(590_000, 600_000);
    const bots = await withCookie('GET', '/v2/bots', cookie);
    expect(bots.status).to.equal(200);
    expect(bots.json.items).to.be.an('array');
  });

  it('when a cookie POST carries the service origin, then it is served; without Origin or from another origin, then 403 BW_ERR_ORIGIN_REFUSED and nothing is created', async () => {
    const cookie = cookieOf((await signIn(t.adminKey)).headers.get('set-cookie'));
    const bot = (name: string) =>
      JSON.stringify({
        name,
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      });
    const post = (name: string, headers: Record<string, string>) =>
      fetch(`${t.url}/v2/bots`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: bot(name),
      });
    const foreign = await post('foreign', { origin: 'https://evil.example' });
    expect(foreign.status).to.equal(403);
    expect(((await foreign.json()) as any).error.code).to.equal('BW_ERR_ORIGIN_REFUSED');
    const missing = await post('no-origin', {});
    expect(missing.status).to.equal(403);
    expect(((await missing.json()) as any).error.code).to.equal('BW_ERR_ORIGIN_REFUSED');
    const own = await post('own', { origin });
    expect(own.status).to.equal(201);
    const names = (await t.call('GET', '/v2/bots?limit=100')).json.items.map((b: any) => b.name);
    expect(names).to.include('own').and.not.include('foreign').and.not.include('no-origin');
  });

  it('when the console signs out, then the session is deleted in Redis and the old cookie is refused', async () => {
    const cookie = cookieOf((await signIn(t.adminKey)).headers.get('set-cookie'));
    const before = (await sessionKeys()).length;
    const refusedOut = await withCookie('DELETE', '/v2/session', cookie, {
      origin: 'https://evil.example',
    });
    expect(refusedOut.status).to.equal(403);
    const out = await withCookie('DELETE', '/v2/session', cookie, { origin });
    expect(out.status).to.equal(204);
    expect(out.response.headers.get('set-cookie')).to.match(/^bw_session=; .*Max-Age=0/);
    expect((await sessionKeys()).length).to.equal(before - 1);
    expect((await withCookie('GET', '/v2/session', cookie)).status).to.equal(401);
    const bots = await withCookie('GET', '/v2/bots', cookie);
    expect([bots.status, bots.json.error.code]).to.deep.equal([401, 'BW_ERR_UNAUTHORIZED']);
  });

  it('when no cookie or a made-up cookie is sent, then the session and admin routes answer 401', async () => {
    const none = await fetch(`${t.url}/v2/session`);
    expect(none.status).to.equal(401);
    const madeUp = `bw_session=${'A'.repeat(43)}`;
    expect((await withCookie('GET', '/v2/session', madeUp)).status).to.equal(401);
    expect((await withCookie('GET', '/v2/bots', madeUp)).status).to.equal(401);
  });

  it('when a sign-in email holds U+0000, then 400 BW_ERR_SCHEMA naming /email and no session (not a 500 from Postgres)', async () => {
    const keysBefore = (await sessionKeys()).length;
    const response = await fetch(`${t.url}/v2/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email: 'a\u0000b@example.test', password: 'a long enough password' }),
    });
    const json = (await response.json()) as { error: { code: string; details: any } };
    expect(response.status).to.equal(400);
    expect(json.error.code).to.equal('BW_ERR_SCHEMA');
    expect(json.error.details.problems[0].path).to.equal('/email');
    expect((await sessionKeys()).length).to.equal(keysBefore);
  });

  it('when the bearer key is used, then the admin API still answers (the key keeps working beside sessions)', async () => {
    const bots = await t.call('GET', '/v2/bots');
    expect(bots.status).to.equal(200);
  });

  it('when wrong keys are posted past the admin auth limit, then 401 each, then 429 BW_ERR_AUTH_RATE_LIMITED even for the right key', async () => {
    for (let i = 0; i < 3; i += 1) {
      const wrong = await signIn('wrong-key');
      expect(wrong.status).to.equal(401);
      expect(((await wrong.json()) as any).error.code).to.equal('BW_ERR_UNAUTHORIZED');
    }
    const limited = await signIn(t.adminKey);
    expect(limited.status).to.equal(429);
    expect(((await limited.json()) as any).error.code).to.equal('BW_ERR_AUTH_RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 300);
    expect(limited.headers.get('set-cookie')).to.equal(null);
    await t.redis.del(...(await t.redis.keys(`${t.prefix}:auth-fail:*`)));
  });
});
