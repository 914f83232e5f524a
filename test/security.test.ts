/**
 * The claims of docs/security.md that no other test checks: credentials are sealed at rest and
 * bound to their row, secrets are redacted from logs, the admin key is compared as a digest.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import nock from 'nock';
import { BotStore } from '../src/shared/bots/store.ts';
import { keyId, matchesDigest, open, secretDigest } from '../src/shared/crypto.ts';
import type { BotwireError } from '../src/shared/errors.ts';
import { lazyChild } from '../src/shared/logger.ts';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from './support/api.ts';
import { capturingLogger } from './support/logs.ts';

describe('security claims', () => {
  let t: TestApi;
  const wa = {
    phone_number_id: '300400500',
    access_token: 'EAAG-sealed-access-token',
    app_secret: 'sealed-app-secret',
    verify_token: 'sealed-verify-token',
  };

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
  });

  after(async () => {
    nock.enableNetConnect();
    await t.stop();
  });

  it('when channels are created, then Postgres holds only AES-GCM sealed credentials, bound to their row', async () => {
    const tg = await t.call('POST', '/v2/bots', {
      body: { name: 'tg', channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
    });
    const w = await t.call('POST', '/v2/bots', {
      body: { name: 'wa', channel: { type: 'whatsapp', details: wa } },
    });
    expect([tg.status, w.status]).to.deep.equal([201, 201]);
    for (const answer of [tg.text, w.text]) {
      for (const secret of [TELEGRAM_TOKEN, ...Object.values(wa).slice(1)]) {
        expect(answer).not.to.contain(secret);
      }
    }
    const rows = await t.schema
      .db<{ id: string; credentials: string }>('channels')
      .select('id', 'credentials')
      .orderBy('created_at');
    expect(rows).to.have.length(2);
    const dump = JSON.stringify(await t.schema.db('channels').select('*'));
    for (const secret of [TELEGRAM_TOKEN, wa.access_token, wa.app_secret, wa.verify_token]) {
      expect(dump).not.to.contain(secret);
    }
    const key = Buffer.from(t.env.CREDENTIALS_KEY!, 'base64');
    const [a, b] = rows as [
      { id: string; credentials: string },
      { id: string; credentials: string },
    ];
    expect(a.credentials).to.match(/^v2\.[0-9a-f]{12}\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(a.credentials.split('.')[1]).to.equal(keyId(key));
    expect(JSON.parse(open(key, a.credentials, a.id)).details.bot_token).to.equal(TELEGRAM_TOKEN);
    // Copied onto another row, or opened with another key, a sealed value does not open.
    expect(() => open(key, a.credentials, b.id)).to.throw();
    expect(() => open(randomBytes(32), a.credentials, a.id)).to.throw();
    // One bit of the ciphertext flipped (editing its base64 text could change only padding bits,
    // or nothing: a value ending "BA" was once "tampered" into itself).
    const parts = a.credentials.split('.');
    const body = Buffer.from(parts[4]!, 'base64url');
    body[0] = body[0]! ^ 1;
    const tampered = [...parts.slice(0, 4), body.toString('base64url')].join('.');
    expect(tampered).not.to.equal(a.credentials);
    expect(() => open(key, tampered, a.id)).to.throw();

    await t.schema.db('channels').where({ id: b.id }).update({ credentials: a.credentials });
    const store = new BotStore({ db: t.schema.db, credentialsKey: key });
    const swapped = (await store.getBot(w.json.app_id))!.channels[0]!;
    expect(swapped.unreadable, 'a swapped ciphertext must not open').to.not.equal(undefined);
    let error: unknown;
    try {
      void swapped.secrets;
    } catch (e) {
      error = e;
    }
    expect((error as BotwireError | undefined)?.code).to.equal('BW_ERR_CREDENTIALS_KEY');
  });

  it('when a log line carries credentials and auth headers, then they are redacted', () => {
    const { logger, lines } = capturingLogger({ component: 'test' });
    logger.info(
      {
        channel: { details: { bot_token: TELEGRAM_TOKEN, ...wa } },
        req: {
          headers: {
            authorization: 'Bearer admin-key-xyz',
            'x-telegram-bot-api-secret-token': 'tg-secret-xyz',
            'x-hub-signature-256': 'sha256=abc',
          },
        },
        details: { app_secret: wa.app_secret },
        token: 'top-level-token-xyz',
        a: { b: { c: { access_token: 'four-deep-token-xyz' } } },
      },
      'with secrets',
    );
    const text = lines.join('');
    for (const secret of [
      TELEGRAM_TOKEN,
      wa.access_token,
      wa.app_secret,
      wa.verify_token,
      'admin-key-xyz',
      'tg-secret-xyz',
      'sha256=abc',
      'top-level-token-xyz',
      'four-deep-token-xyz',
    ]) {
      expect(text).not.to.contain(secret);
    }
    expect(text).to.contain('[redacted]');
  });

  it('when a lazy child logger writes, then its line carries the bindings and is redacted; below the level it makes no child', () => {
    const { logger, lines } = capturingLogger({ component: 'test', level: 'info' });
    let children = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<typeof logger.child>) => {
      children += 1;
      return child(...args);
    }) as typeof logger.child;
    const log = lazyChild(logger, { msgId: '1-0', turnId: 'turn-9' });
    log.debug({ token: 'debug-token-xyz' }, 'below the level');
    expect(children).to.equal(0);
    expect(lines).to.deep.equal([]);
    log.warn({ details: { bot_token: TELEGRAM_TOKEN } }, 'at the level');
    log.info('again');
    expect(children).to.equal(1);
    expect(lines).to.have.length(2);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).to.deep.include({ msgId: '1-0', turnId: 'turn-9', msg: 'at the level' });
    expect(lines.join('')).not.to.contain(TELEGRAM_TOKEN);
    expect(lines.join('')).to.contain('[redacted]');
  });

  it('when the admin key is compared, then it is compared as a SHA-256 digest whatever the lengths', () => {
    const digest = secretDigest('k'.repeat(40));
    expect(matchesDigest('k'.repeat(40), digest)).to.equal(true);
    expect(matchesDigest('k'.repeat(39), digest)).to.equal(false);
    expect(matchesDigest('k'.repeat(4000), digest)).to.equal(false);
    expect(matchesDigest(undefined, digest)).to.equal(false);
  });
});
