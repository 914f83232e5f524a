/**
 * Account sign-in under attack: wrong passwords limited per account (from any address) and per
 * address (over any accounts), 429 with Retry-After, the right password working again after the
 * window; an unknown email taking the same path as a known one (one key derivation each, the same
 * refusal), never a timing measurement.
 */
import { expect } from 'chai';
import { request } from 'node:http';
import { scryptKdf, type Kdf } from '../../src/api/admin/passwords.ts';
import { ORIGIN, signIn } from '../support/accounts.ts';
import { startTestApi, type TestApi } from '../support/api.ts';

/** POST /v2/session from the local address `from` (the edge limits by peer address). */
function signInFrom(
  t: TestApi,
  from: string,
  email: string,
  password: string,
): Promise<{ status: number; code?: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ email, password });
    const req = request(
      `${t.url}/v2/session`,
      {
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/json', origin: ORIGIN },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const json = text ? JSON.parse(text) : undefined;
          resolve({
            status: res.statusCode ?? 0,
            code: json?.error?.code,
            retryAfter: res.headers['retry-after'],
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('account sign-in limits and the unknown-email path', function () {
  this.timeout(120_000);
  let t: TestApi;
  let derivations = 0;
  const countingKdf: Kdf = (...args) => {
    derivations += 1;
    return scryptKdf(...args);
  };
  const password = 'a long enough password';

  async function account(email: string): Promise<void> {
    const made = await t.call('POST', '/v2/accounts', {
      body: { email, name: email, role: 'viewer', password },
    });
    expect(made.status, made.text).to.equal(201);
  }

  before(async () => {
    t = await startTestApi(
      { ADMIN_AUTH_MAX_FAILURES: '6', ACCOUNT_AUTH_MAX_FAILURES: '3', ADMIN_AUTH_WINDOW_S: '4' },
      { kdf: countingKdf },
    );
    for (const name of ['ana', 'bo', 'cy', 'di', 'ed']) await account(`${name}@example.test`);
  });

  after(async () => {
    await t?.stop();
  });

  it('when an unknown email signs in, then the key derivation runs once, as for a known email with a wrong password, and the refusal is the same', async () => {
    derivations = 0;
    const known = await signIn(t, 'ana@example.test', 'not the password');
    expect(derivations).to.equal(1);
    derivations = 0;
    const unknown = await signIn(t, 'nobody@example.test', 'not the password');
    expect(derivations).to.equal(1);
    expect([unknown.status, unknown.json.error.code]).to.deep.equal([
      known.status,
      known.json.error.code,
    ]);
    expect(unknown.json.error.message).to.equal(known.json.error.message);
    expect(known.status).to.equal(401);
    // The right password, for comparison: one derivation too.
    derivations = 0;
    expect((await signIn(t, 'ana@example.test', password)).status).to.equal(204);
    expect(derivations).to.equal(1);
    // Unknown emails count toward their own limit like known ones (nothing tells them apart).
    await t.redis.del(...(await t.redis.keys(`${t.prefix}:auth-fail*`)));
  });

  it('when one account gets too many wrong passwords, then its sign-in is 429 from every address, even with the right password, other accounts still sign in, and after the window the right password works', async () => {
    // At once: each takes a key derivation, and the window must not pass meanwhile.
    const wrong = await Promise.all(
      [1, 2, 3].map(() => signInFrom(t, '127.0.0.2', 'bo@example.test', 'wrong')),
    );
    expect(wrong.map((w) => w.status)).to.deep.equal([401, 401, 401]);
    const locked = await signInFrom(t, '127.0.0.3', 'BO@example.test', password);
    expect([locked.status, locked.code]).to.deep.equal([429, 'BW_ERR_AUTH_RATE_LIMITED']);
    expect(Number(locked.retryAfter)).to.be.within(1, 4);
    expect((await signInFrom(t, '127.0.0.3', 'cy@example.test', password)).status).to.equal(204);
    await new Promise((resolve) => setTimeout(resolve, 4100));
    expect((await signInFrom(t, '127.0.0.3', 'bo@example.test', password)).status).to.equal(204);
  });

  it('when one address fails past its limit over several accounts, then it gets 429 for any sign-in, even a right one, while another address signs in, and after the window it works again', async () => {
    // Two wrong passwords for each of three accounts: under the account limit, at the address's.
    const wrong = await Promise.all(
      ['cy', 'di', 'ed', 'cy', 'di', 'ed'].map((name) =>
        signInFrom(t, '127.0.0.4', `${name}@example.test`, 'wrong'),
      ),
    );
    expect(wrong.map((w) => w.status)).to.deep.equal([401, 401, 401, 401, 401, 401]);
    const refused = await signInFrom(t, '127.0.0.4', 'ana@example.test', password);
    expect([refused.status, refused.code]).to.deep.equal([429, 'BW_ERR_AUTH_RATE_LIMITED']);
    expect(Number(refused.retryAfter)).to.be.within(1, 4);
    expect((await signInFrom(t, '127.0.0.5', 'ana@example.test', password)).status).to.equal(204);
    await new Promise((resolve) => setTimeout(resolve, 4100));
    expect((await signInFrom(t, '127.0.0.4', 'ana@example.test', password)).status).to.equal(204);
  });

  it('when passwords are stored, then each is a self-describing scrypt string with its own salt, and no password is in the table', async () => {
    const rows: { password_hash: string }[] = await t.api
      .db('accounts')
      .select('email', 'password_hash');
    const salts = new Set<string>();
    for (const row of rows) {
      expect(row.password_hash).to.match(
        /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
      );
      expect(row.password_hash).to.not.include(password);
      salts.add(row.password_hash.split('$')[3]!);
    }
    expect(salts.size).to.equal(rows.length);
  });
});
