/** Hostile and malformed WhatsApp callbacks: POST /callback, POST /v2/callback/whatsapp/<app_id>, GET handshakes. */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { CorpusContext, CorpusRequest, HttpCase, ReplayCase } from './types.ts';
import { nested } from './types.ts';
import { whatsappChange } from '../support/api.ts';

const S = 'whatsapp';

export const sign = (raw: string | Buffer, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

interface Msg {
  from: string;
  id: string;
  timestamp: string;
  type: string;
  text?: { body: unknown };
  [key: string]: unknown;
}

function textMessage(c: CorpusContext, extra: Partial<Msg> = {}): Msg {
  return {
    from: '15550002222',
    id: `wamid.corpus${c.fresh()}`,
    timestamp: '1700000000',
    type: 'text',
    text: { body: 'hola' },
    ...extra,
  };
}

/** A payload for `number` holding `value` (merged over a valid change value). */
export function payload(number: string, value: Record<string, unknown> = {}): Record<string, any> {
  return whatsappChange(number, value, { entryId: 'WABA' });
}

/** POST /callback of `body` (serialised once), signed with the bot's app secret. */
function signed(
  c: CorpusContext,
  body: unknown,
  options: { path?: string; secret?: string; headers?: Record<string, string> } = {},
): CorpusRequest {
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return {
    method: 'POST',
    path: options.path ?? '/callback',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': sign(raw, options.secret ?? c.whatsapp.appSecret),
      ...options.headers,
    },
    raw,
  };
}

/** A valid signed payload with one text message, spoiled by `patch`. */
function valid(
  c: CorpusContext,
  patch: (p: Record<string, any>) => unknown = (p) => p,
  options: Parameters<typeof signed>[2] = {},
): CorpusRequest {
  return signed(c, patch(payload(c.whatsapp.number, { messages: [textMessage(c)] })), options);
}

/** The same message but with a header set or replaced after signing. */
function withSignature(c: CorpusContext, signature: string | undefined): CorpusRequest {
  const r = valid(c);
  const headers = { ...r.headers };
  if (signature === undefined) delete headers['x-hub-signature-256'];
  else headers['x-hub-signature-256'] = signature;
  return { ...r, headers };
}

const schema = { status: 400, code: 'BW_ERR_SCHEMA', quarantined: true } as const;
const malformed = { status: 400, code: 'BW_ERR_MALFORMED_JSON' } as const;
const badSignature = { status: 401, code: 'BW_ERR_BAD_SIGNATURE' } as const;
const value = (p: Record<string, any>) => p.entry[0].changes[0].value as Record<string, any>;

export const WHATSAPP_CASES: HttpCase[] = [
  // Forged signatures.
  {
    name: 'no signature header',
    kind: 'forged-signature',
    surface: S,
    request: (c) => withSignature(c, undefined),
    expect: badSignature,
  },
  {
    name: 'empty signature header',
    kind: 'forged-signature',
    surface: S,
    request: (c) => withSignature(c, ''),
    expect: badSignature,
  },
  {
    name: 'signature made with the wrong secret',
    kind: 'forged-signature',
    surface: S,
    request: (c) => valid(c, (p) => p, { secret: 'not-the-app-secret' }),
    expect: badSignature,
  },
  {
    name: 'signature made with the verify token',
    kind: 'forged-signature',
    surface: S,
    request: (c) => valid(c, (p) => p, { secret: c.whatsapp.verifyToken }),
    expect: badSignature,
  },
  {
    name: 'signature of another body',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const r = valid(c);
      return {
        ...r,
        headers: { ...r.headers, 'x-hub-signature-256': sign('{}', c.whatsapp.appSecret) },
      };
    },
    expect: badSignature,
  },
  {
    name: 'signature over the body re-serialised with spaces',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const body = payload(c.whatsapp.number, { messages: [textMessage(c)] });
      const r = signed(c, JSON.stringify(body, null, 2));
      return { ...r, raw: JSON.stringify(body) };
    },
    expect: badSignature,
  },
  {
    name: 'a body changed after signing (one more message appended)',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const body = payload(c.whatsapp.number, { messages: [textMessage(c)] });
      const r = signed(c, body);
      (body.entry[0].changes[0].value.messages as Msg[]).push(
        textMessage(c, { text: { body: 'injected' } }),
      );
      return { ...r, raw: JSON.stringify(body) };
    },
    expect: badSignature,
  },
  {
    name: 'sha1= signature of the body',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const r = valid(c);
      const sha1 = createHmac('sha1', c.whatsapp.appSecret).update(r.raw!).digest('hex');
      return { ...r, headers: { ...r.headers, 'x-hub-signature-256': `sha1=${sha1}` } };
    },
    expect: badSignature,
  },
  {
    name: 'signature without the sha256= prefix',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const r = valid(c);
      return {
        ...r,
        headers: {
          ...r.headers,
          'x-hub-signature-256': r.headers!['x-hub-signature-256']!.slice(7),
        },
      };
    },
    expect: badSignature,
  },
  {
    name: 'signature truncated by one hex digit',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const r = valid(c);
      return {
        ...r,
        headers: {
          ...r.headers,
          'x-hub-signature-256': r.headers!['x-hub-signature-256']!.slice(0, -1),
        },
      };
    },
    expect: badSignature,
  },
  {
    name: 'signature as base64 instead of hex',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const r = valid(c);
      const b64 = createHmac('sha256', c.whatsapp.appSecret).update(r.raw!).digest('base64');
      return { ...r, headers: { ...r.headers, 'x-hub-signature-256': `sha256=${b64}` } };
    },
    expect: badSignature,
  },
  {
    name: 'all-zero signature',
    kind: 'forged-signature',
    surface: S,
    request: (c) => withSignature(c, `sha256=${'0'.repeat(64)}`),
    expect: badSignature,
  },
  {
    name: 'plain SHA-256 of the body (no key)',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const r = valid(c);
      return {
        ...r,
        headers: {
          ...r.headers,
          'x-hub-signature-256': `sha256=${createHash('sha256').update(r.raw!).digest('hex')}`,
        },
      };
    },
    expect: badSignature,
  },
  {
    name: 'a payload for the signed bot and the switched-off bot, signed for one only',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const body = payload(c.whatsapp.number, { messages: [textMessage(c)] });
      body.entry.push(payload(c.inactive.number, { messages: [textMessage(c)] }).entry[0]);
      return signed(c, body);
    },
    expect: badSignature,
  },
  {
    name: 'a forged signature with a schema-invalid body: nothing quarantined',
    kind: 'forged-signature',
    surface: S,
    request: (c) => {
      const r = valid(c, (p) => ({ ...p, entry: [{ ...p.entry[0], id: 7 }] }));
      return { ...r, headers: { ...r.headers, 'x-hub-signature-256': `sha256=${'f'.repeat(64)}` } };
    },
    expect: badSignature,
  },

  // Unknown, switched-off or foreign bots and numbers.
  {
    name: 'a phone_number_id no bot has',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => signed(c, payload('999000111222', { messages: [textMessage(c)] })),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_BOT' },
  },
  {
    name: 'a phone_number_id with SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: (c) => signed(c, payload("1' or '1'='1", { messages: [textMessage(c)] })),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_BOT' },
  },
  {
    name: 'a phone_number_id of __proto__',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) => signed(c, payload('__proto__', { messages: [textMessage(c)] })),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_BOT' },
  },
  {
    name: 'a phone_number_id of hasOwnProperty',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) => signed(c, payload('hasOwnProperty', { messages: [textMessage(c)] })),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_BOT' },
  },
  {
    name: 'the switched-off bot, correctly signed',
    kind: 'unknown-bot',
    surface: S,
    request: (c) =>
      signed(c, payload(c.inactive.number, { messages: [textMessage(c)] }), {
        secret: c.inactive.appSecret,
      }),
    expect: { status: 404, code: 'BW_ERR_BOT_INACTIVE' },
  },
  {
    name: 'the per-bot path with a fresh UUID',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => valid(c, (p) => p, { path: `/v2/callback/whatsapp/${randomUUID()}` }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_BOT' },
  },
  {
    name: 'the per-bot path with an id that is not a UUID',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => valid(c, (p) => p, { path: '/v2/callback/whatsapp/12345' }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_BOT' },
  },
  {
    name: 'the per-bot path with SQL injection as the id',
    kind: 'sql-injection',
    surface: S,
    request: (c) =>
      valid(c, (p) => p, {
        path: `/v2/callback/whatsapp/${encodeURIComponent("'; delete from channels; --")}`,
      }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_BOT' },
  },
  {
    name: 'the per-bot path of a Telegram-only bot',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => valid(c, (p) => p, { path: `/v2/callback/whatsapp/${c.telegram.appId}` }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_CHANNEL' },
  },
  {
    name: "the per-bot path with another bot's number",
    kind: 'unknown-bot',
    surface: S,
    request: (c) =>
      signed(c, payload(c.inactive.number, { messages: [textMessage(c)] }), {
        path: `/v2/callback/whatsapp/${c.whatsapp.appId}`,
      }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_CHANNEL' },
  },
  {
    name: 'eleven different phone numbers in one payload',
    kind: 'huge',
    surface: S,
    request: (c) => {
      const body = payload(c.whatsapp.number, { messages: [textMessage(c)] });
      for (let i = 0; i < 10; i += 1) body.entry.push(payload(`77700${i}`).entry[0]);
      return signed(c, body);
    },
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },

  // Content type, JSON, UTF-8, size.
  {
    name: 'text/plain body',
    kind: 'content-type',
    surface: S,
    request: (c) => valid(c, (p) => p, { headers: { 'content-type': 'text/plain' } }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'form-encoded body',
    kind: 'content-type',
    surface: S,
    request: (c) =>
      valid(c, (p) => p, { headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'application/jsonp body',
    kind: 'content-type',
    surface: S,
    request: (c) => valid(c, (p) => p, { headers: { 'content-type': 'text/javascript' } }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'empty body, signed',
    kind: 'malformed-json',
    surface: S,
    request: (c) => signed(c, ''),
    expect: malformed,
  },
  {
    name: 'truncated JSON, signed',
    kind: 'malformed-json',
    surface: S,
    request: (c) => signed(c, '{"object":"whatsapp_business_account","entry":['),
    expect: malformed,
  },
  {
    name: 'JSON with a byte order mark, signed',
    kind: 'malformed-json',
    surface: S,
    request: (c) => signed(c, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')])),
    expect: malformed,
  },
  {
    name: 'invalid UTF-8 in a message text, signed',
    kind: 'invalid-utf8',
    surface: S,
    request: (c) => {
      const text = JSON.stringify(
        payload(c.whatsapp.number, { messages: [textMessage(c, { text: { body: 'MARK' } })] }),
      );
      const [before, after] = text.split('MARK') as [string, string];
      return signed(
        c,
        Buffer.concat([
          Buffer.from(before),
          Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
          Buffer.from(after),
        ]),
      );
    },
    expect: malformed,
  },
  {
    name: 'Latin-1 encoded text, signed',
    kind: 'invalid-utf8',
    surface: S,
    request: (c) =>
      signed(
        c,
        Buffer.from(
          JSON.stringify(
            payload(c.whatsapp.number, {
              messages: [textMessage(c, { text: { body: 'olá señor' } })],
            }),
          ),
          'latin1',
        ),
      ),
    expect: malformed,
  },
  {
    name: 'a body over HTTP_BODY_LIMIT_BYTES, signed',
    kind: 'oversize',
    surface: S,
    request: (c) => signed(c, `{"object":"${'x'.repeat(1024 * 1024)}"}`),
    expect: { status: 413, code: 'BW_ERR_PAYLOAD_TOO_LARGE' },
  },
  {
    name: 'a body over the limit, unsigned',
    kind: 'oversize',
    surface: S,
    request: () => ({
      method: 'POST',
      path: '/callback',
      headers: { 'content-type': 'application/json' },
      raw: `[${'1,'.repeat(700 * 1024)}1]`,
    }),
    // Every WhatsApp channel of the corpus has an app secret: refused before the body is read.
    expect: { status: 401, code: 'BW_ERR_BAD_SIGNATURE' },
  },

  // Schema, after a good signature: quarantined.
  {
    name: 'object missing',
    kind: 'missing-field',
    surface: S,
    request: (c) => valid(c, ({ object: _, ...p }) => p),
    expect: schema,
  },
  {
    // No number can be read, so the sender is not identified: refused, not quarantined.
    name: 'entry as an object',
    kind: 'wrong-type',
    surface: S,
    request: (c) => valid(c, (p) => ({ ...p, entry: { ...p.entry } })),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: 'entry id as a number',
    kind: 'wrong-type',
    surface: S,
    request: (c) => valid(c, (p) => ({ ...p, entry: [{ ...p.entry[0], id: 7 }] })),
    expect: schema,
  },
  {
    name: 'messaging_product other than whatsapp',
    kind: 'wrong-type',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).messaging_product = 'instagram'), p)),
    expect: schema,
  },
  {
    name: 'message without an id',
    kind: 'missing-field',
    surface: S,
    request: (c) => valid(c, (p) => (delete value(p).messages[0].id, p)),
    expect: schema,
  },
  {
    name: 'message without from',
    kind: 'missing-field',
    surface: S,
    request: (c) => valid(c, (p) => (delete value(p).messages[0].from, p)),
    expect: schema,
  },
  {
    name: 'text message without text',
    kind: 'missing-field',
    surface: S,
    request: (c) => valid(c, (p) => (delete value(p).messages[0].text, p)),
    expect: schema,
  },
  {
    name: 'text body as an object',
    kind: 'wrong-type',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).messages[0].text.body = { $gt: '' }), p)),
    expect: schema,
  },
  {
    name: 'message id as a number',
    kind: 'wrong-type',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).messages[0].id = 12345), p)),
    expect: schema,
  },
  {
    name: 'message id of 300 characters',
    kind: 'huge',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).messages[0].id = 'w'.repeat(300)), p)),
    expect: schema,
  },
  {
    name: 'text body of 4,097 characters',
    kind: 'huge',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).messages[0].text.body = 'x'.repeat(4097)), p)),
    expect: schema,
  },
  {
    name: 'text body of 800 KiB',
    kind: 'huge',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).messages[0].text.body = 'x'.repeat(800 * 1024)), p)),
    expect: schema,
  },
  {
    name: '101 messages in one change',
    kind: 'huge',
    surface: S,
    request: (c) =>
      valid(c, (p) => ((value(p).messages = Array.from({ length: 101 }, () => textMessage(c))), p)),
    expect: schema,
  },
  {
    name: 'interactive message of an unknown interactive type',
    kind: 'wrong-type',
    surface: S,
    request: (c) =>
      valid(
        c,
        (p) => (
          (value(p).messages[0] = {
            ...textMessage(c),
            type: 'interactive',
            interactive: { type: 'eval' },
          }),
          p
        ),
      ),
    expect: schema,
  },
  {
    name: 'location with string coordinates',
    kind: 'wrong-type',
    surface: S,
    request: (c) =>
      valid(
        c,
        (p) => (
          (value(p).messages[0] = {
            ...textMessage(c),
            type: 'location',
            location: { latitude: '1', longitude: '2' },
          }),
          p
        ),
      ),
    expect: schema,
  },
  {
    name: 'status without a status',
    kind: 'missing-field',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).statuses = [{ id: 'wamid.s' }]), p)),
    expect: schema,
  },
  {
    name: 'contacts as a string',
    kind: 'wrong-type',
    surface: S,
    request: (c) => valid(c, (p) => ((value(p).contacts = 'Ana'), p)),
    expect: schema,
  },
  {
    name: 'SQL injection in a message id longer than allowed',
    kind: 'sql-injection',
    surface: S,
    request: (c) =>
      valid(
        c,
        (p) => ((value(p).messages[0].id = `x'); drop table messages; --${'-'.repeat(256)}`), p),
      ),
    expect: schema,
  },
  {
    name: 'template injection as the message type',
    kind: 'template-injection',
    surface: S,
    request: (c) =>
      valid(
        c,
        (p) => (
          (value(p).messages[0].type = "{{constructor.constructor('return process')().exit()}}"),
          p
        ),
      ),
    expect: schema,
  },

  // Prototype keys: refused while parsing, signed or not.
  {
    name: '__proto__ in a message, signed',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) =>
      signed(
        c,
        JSON.stringify(payload(c.whatsapp.number, { messages: [textMessage(c)] })).replace(
          '"type":"text"',
          '"type":"text","__proto__":{"admin":true}',
        ),
      ),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: 'constructor.prototype in metadata, signed',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) =>
      signed(
        c,
        JSON.stringify(payload(c.whatsapp.number, { messages: [textMessage(c)] })).replace(
          '"metadata":{',
          '"metadata":{"constructor":{"prototype":{"admin":true}},',
        ),
      ),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: 'prototype key with \\u escapes, signed',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) =>
      signed(
        c,
        JSON.stringify(payload(c.whatsapp.number, { messages: [textMessage(c)] })).replace(
          '"type":"text"',
          '"type":"text","\\u0070rototype":{"admin":true}',
        ),
      ),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: '__proto__ unsigned, with an unknown number',
    kind: 'prototype-pollution',
    surface: S,
    request: () => ({
      method: 'POST',
      path: '/callback',
      headers: { 'content-type': 'application/json' },
      raw: '{"object":"x","entry":[],"__proto__":{"polluted":1}}',
    }),
    // Every WhatsApp channel of the corpus has an app secret: refused before the body is read.
    expect: { status: 401, code: 'BW_ERR_BAD_SIGNATURE' },
  },

  // Nesting.
  {
    name: 'a message field nested 100,000 arrays deep, signed',
    kind: 'nesting',
    surface: S,
    request: (c) =>
      signed(
        c,
        JSON.stringify(payload(c.whatsapp.number, { messages: [textMessage(c)] })).replace(
          '"type":"text"',
          `"type":"text","extra":${nested(100_000)}`,
        ),
      ),
    expect: malformed,
  },
  {
    name: 'a metadata field nested 5,000 objects deep, signed',
    kind: 'nesting',
    surface: S,
    request: (c) =>
      signed(
        c,
        JSON.stringify(payload(c.whatsapp.number, { messages: [textMessage(c)] })).replace(
          '"metadata":{',
          `"metadata":{"deep":${nested(5000, '{"a":', '}')},`,
        ),
      ),
    expect: malformed,
  },

  // The verification handshake.
  {
    name: 'handshake with a wrong verify token',
    kind: 'forged-secret',
    surface: S,
    request: () => ({
      method: 'GET',
      path: '/callback?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=123',
    }),
    expect: { status: 403, code: 'BW_ERR_VERIFY_TOKEN' },
  },
  {
    name: 'handshake with an empty verify token',
    kind: 'forged-secret',
    surface: S,
    request: () => ({
      method: 'GET',
      path: '/callback?hub.mode=subscribe&hub.verify_token=&hub.challenge=123',
    }),
    expect: { status: 403, code: 'BW_ERR_VERIFY_TOKEN' },
  },
  {
    name: 'handshake with an app secret as the verify token',
    kind: 'forged-secret',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: `/callback?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(c.inactive.appSecret)}&hub.challenge=1`,
    }),
    expect: { status: 403, code: 'BW_ERR_VERIFY_TOKEN' },
  },
  {
    name: 'handshake with the right token but hub.mode=unsubscribe',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: `/callback?hub.mode=unsubscribe&hub.verify_token=${c.whatsapp.verifyToken}&hub.challenge=1`,
    }),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: 'handshake without a challenge',
    kind: 'missing-field',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: `/callback?hub.mode=subscribe&hub.verify_token=${c.whatsapp.verifyToken}`,
    }),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: 'handshake with the verify token given twice (an array)',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: `/callback?hub.mode=subscribe&hub.verify_token=${c.whatsapp.verifyToken}&hub.verify_token=x&hub.challenge=1`,
    }),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: "per-bot handshake with another bot's verify token",
    kind: 'forged-secret',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: `/v2/callback/whatsapp/${c.telegram.appId}?hub.mode=subscribe&hub.verify_token=${c.whatsapp.verifyToken}&hub.challenge=1`,
    }),
    expect: { status: 403, code: 'BW_ERR_VERIFY_TOKEN' },
  },
  {
    name: 'PUT on /callback',
    kind: 'wrong-method',
    surface: S,
    request: (c) => ({ ...valid(c), method: 'PUT' }),
    expect: { status: 405, code: 'BW_ERR_METHOD_NOT_ALLOWED' },
  },
];

export const WHATSAPP_REPLAYS: ReplayCase[] = [
  {
    name: 'the same message delivered twice',
    kind: 'replay',
    surface: S,
    request: (c) => valid(c),
    times: 2,
    publishes: 1,
  },
  {
    name: 'the same message delivered four times on the per-bot path',
    kind: 'replay',
    surface: S,
    request: (c) => valid(c, (p) => p, { path: `/v2/callback/whatsapp/${c.whatsapp.appId}` }),
    times: 4,
    publishes: 1,
  },
  {
    name: 'the same message id inside one payload twice',
    kind: 'replay',
    surface: S,
    request: (c) =>
      valid(c, (p) => ((value(p).messages = [value(p).messages[0], value(p).messages[0]]), p)),
    times: 1,
    publishes: 1,
  },
  {
    name: 'the same delivered status twice',
    kind: 'replay',
    surface: S,
    request: (c) =>
      signed(
        c,
        payload(c.whatsapp.number, {
          statuses: [
            {
              id: `wamid.out${c.fresh()}`,
              status: 'delivered',
              timestamp: '1700000002',
              recipient_id: '15550002222',
            },
          ],
        }),
      ),
    times: 2,
    publishes: 1,
  },
  {
    name: 'the same message id re-signed with a different text',
    kind: 'replay',
    surface: S,
    request: (c) => valid(c),
    vary: (first, n, c) => {
      const body = JSON.parse(String(first.raw)) as Record<string, any>;
      value(body).messages[0].text.body = `changed ${n}`;
      return signed(c, body);
    },
    times: 3,
    publishes: 1,
  },
];
