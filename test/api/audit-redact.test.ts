/**
 * The one redaction of audit summaries (src/api/audit/redact.ts): every channel type's details,
 * nested objects and arrays, secret-shaped values under harmless keys.
 */
import { expect } from 'chai';
import { isSecretKey, redact, REDACTED } from '../../src/api/audit/redact.ts';

const TELEGRAM_TOKEN = '123456789:AAExampleTokenForTests_abcdefghijk';

describe('audit log: redaction', () => {
  it("when every channel type's details are redacted, then no credential is left and the rest is", () => {
    const out = redact({
      telegram: {
        type: 'telegram',
        details: { bot_token: TELEGRAM_TOKEN },
        secret_token: 's3cr3t-webhook',
      },
      whatsapp: {
        type: 'whatsapp',
        details: {
          phone_number_id: '1098765432109876',
          access_token: 'EAAG-access',
          app_secret: 'app-secret-value',
          verify_token: 'verify-value',
        },
      },
      web: {
        type: 'web',
        details: { allowed_origins: ['https://shop.example.test'] },
        token_key: 'k3y',
      },
    });
    expect(out).to.deep.equal({
      telegram: { type: 'telegram', details: {} },
      whatsapp: { type: 'whatsapp', details: { phone_number_id: '1098765432109876' } },
      web: { type: 'web', details: { allowed_origins: ['https://shop.example.test'] } },
    });
  });

  it('when secrets sit deep in objects and arrays, under any spelling, then every one is dropped', () => {
    const out = redact({
      account: {
        email: 'ana@example.test',
        password: 'p',
        passwordHash: 'h',
        password_hash: 'h',
        'api-key': 'k',
        apiKey: 'k',
        credentials: { user: 'u', pass: 'p' },
        issued: [{ id: 't1', token_hash: 'h', scopes: { Authorization: 'Bearer x' } }],
      },
      list: [[{ deeper: { SECRET: 'x', privateKey: 'x', session_id: 'x', name: 'kept' } }]],
    });
    expect(out).to.deep.equal({
      account: { email: 'ana@example.test', issued: [{ id: 't1', scopes: {} }] },
      list: [[{ deeper: { name: 'kept' } }]],
    });
  });

  it('when a credential-shaped value sits under a harmless key, then it is replaced', () => {
    const out = redact({
      note: `token is ${TELEGRAM_TOKEN}`,
      header: 'Bearer abcdef',
      pem: '-----BEGIN RSA PRIVATE KEY-----\nMIIE...',
      text: 'hello',
    });
    expect(out).to.deep.equal({ note: REDACTED, header: REDACTED, pem: REDACTED, text: 'hello' });
  });

  it('when keys only resemble secret words, then they are kept', () => {
    for (const key of ['keywords', 'author', 'allowed_origins', 'monkey', 'tokenizer_name', 'name'])
      expect(isSecretKey(key), key).to.equal(false);
    for (const key of [
      'bot_token',
      'accessToken',
      'app_secret',
      'verify_token',
      'token_key',
      'hash',
      'key',
    ])
      expect(isSecretKey(key), key).to.equal(true);
  });

  it('when values are dates, functions or nested too deep, then dates become ISO strings, functions go, depth is cut', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 12; i++) deep = { d: deep };
    const out = redact({ at: new Date('2026-11-26T09:00:00Z'), fn: () => 1, deep });
    expect(out.at).to.equal('2026-11-26T09:00:00.000Z');
    expect(out).to.not.have.property('fn');
    expect(JSON.stringify(out.deep)).to.include('[cut]').and.not.include('leaf');
  });
});
