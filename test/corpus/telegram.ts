/** Hostile and malformed Telegram callbacks: POST /v2/callback/telegram/<app_id>. */
import { randomUUID } from 'node:crypto';
import type { CorpusContext, CorpusRequest, HttpCase, ReplayCase } from './types.ts';
import { nested } from './types.ts';

const path = (appId: string) => `/v2/callback/telegram/${appId}`;

function message(c: CorpusContext, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    message_id: c.fresh(),
    date: 1_700_000_000,
    chat: { id: 4242, type: 'private' },
    from: { id: 4242, is_bot: false, first_name: 'Ana' },
    text: 'hello',
    ...extra,
  };
}

/** A well-formed update with the right secret; `patch` spoils one part of it. */
function update(
  c: CorpusContext,
  patch: (u: Record<string, unknown>) => Record<string, unknown> = (u) => u,
): CorpusRequest {
  return {
    method: 'POST',
    path: path(c.telegram.appId),
    headers: { 'x-telegram-bot-api-secret-token': c.telegram.secret },
    body: patch({ update_id: c.fresh(), message: message(c) }),
  };
}

/** The same, with a raw body (for bytes JSON.stringify cannot produce). */
function rawUpdate(
  c: CorpusContext,
  raw: string | Buffer,
  contentType = 'application/json',
): CorpusRequest {
  return {
    method: 'POST',
    path: path(c.telegram.appId),
    headers: { 'x-telegram-bot-api-secret-token': c.telegram.secret, 'content-type': contentType },
    raw,
  };
}

const schema = { status: 400, code: 'BW_ERR_SCHEMA', quarantined: true } as const;
const malformed = { status: 400, code: 'BW_ERR_MALFORMED_JSON' } as const;
const badSecret = { status: 401, code: 'BW_ERR_BAD_SECRET' } as const;
const unknownBot = { status: 404, code: 'BW_ERR_UNKNOWN_BOT' } as const;
const S = 'telegram';

function withSecret(
  c: CorpusContext,
  secret: string | undefined,
  appId = c.telegram.appId,
): CorpusRequest {
  const r = update(c);
  return {
    ...r,
    path: path(appId),
    headers: secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret },
  };
}

export const TELEGRAM_CASES: HttpCase[] = [
  // Forged or missing secrets: refused before the body is read, nothing kept.
  {
    name: 'no secret header',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, undefined),
    expect: badSecret,
  },
  {
    name: 'empty secret header',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, ''),
    expect: badSecret,
  },
  {
    name: 'wrong secret of the same length',
    kind: 'forged-secret',
    surface: S,
    request: (c) =>
      withSecret(
        c,
        c.telegram.secret.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A')),
      ),
    expect: badSecret,
  },
  {
    name: 'secret with one character missing',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret.slice(0, -1)),
    expect: badSecret,
  },
  {
    name: 'secret with one character added',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, `${c.telegram.secret}x`),
    expect: badSecret,
  },
  {
    name: 'secret in upper case',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret.toUpperCase()),
    expect: badSecret,
  },
  {
    name: "another bot's secret",
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, c.otherTelegram.secret),
    expect: badSecret,
  },
  {
    name: 'the bot token as the secret',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, c.telegram.botToken),
    expect: badSecret,
  },
  {
    name: 'the admin key as the secret',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, c.adminKey),
    expect: badSecret,
  },
  {
    name: 'a 4 KiB secret',
    kind: 'forged-secret',
    surface: S,
    request: (c) => withSecret(c, 'a'.repeat(4096)),
    expect: badSecret,
  },
  {
    name: 'the secret sent as a bearer token instead of the header',
    kind: 'forged-secret',
    surface: S,
    request: (c) => ({
      ...withSecret(c, undefined),
      headers: { authorization: `Bearer ${c.telegram.secret}` },
    }),
    expect: badSecret,
  },
  {
    name: 'wrong secret and an oversize body: refused before reading',
    kind: 'forged-secret',
    surface: S,
    request: (c) => ({ ...withSecret(c, 'wrong'), raw: 'x'.repeat(2 * 1024 * 1024) }),
    expect: badSecret,
  },
  {
    name: 'wrong secret and malformed JSON: the secret is checked first',
    kind: 'forged-secret',
    surface: S,
    request: (c) => ({ ...withSecret(c, 'wrong'), raw: '{"update_id":' }),
    expect: badSecret,
  },

  // Bot ids that do not exist, are switched off, or are not ids at all.
  {
    name: 'unknown app id (a fresh UUID)',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, randomUUID()),
    expect: unknownBot,
  },
  {
    name: 'app id that is not a UUID',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, 'not-a-bot'),
    expect: unknownBot,
  },
  {
    name: 'app id with SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, encodeURIComponent("1'; drop table bots; --")),
    expect: unknownBot,
  },
  {
    name: 'app id with a UNION select',
    kind: 'sql-injection',
    surface: S,
    request: (c) =>
      withSecret(
        c,
        c.telegram.secret,
        encodeURIComponent("x' union select app_id from bots where '1'='1"),
      ),
    expect: unknownBot,
  },
  {
    name: 'app id of 2,000 characters',
    kind: 'huge',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, 'a'.repeat(2000)),
    expect: unknownBot,
  },
  {
    name: 'app id in upper case (a different id)',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, c.telegram.appId.toUpperCase()),
    expect: unknownBot,
  },
  {
    name: 'app id with percent-encoded path traversal',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, '..%2F..%2Fv2%2Fbots'),
    expect: unknownBot,
  },
  {
    name: 'app id __proto__',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, '__proto__'),
    expect: unknownBot,
  },
  {
    name: 'app id constructor',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, 'constructor'),
    expect: unknownBot,
  },
  {
    name: 'switched-off bot with its right secret',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => withSecret(c, c.inactive.secret, c.inactive.appId),
    expect: { status: 404, code: 'BW_ERR_BOT_INACTIVE' },
  },
  {
    name: 'a WhatsApp-only bot on the Telegram path',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => withSecret(c, c.telegram.secret, c.whatsapp.appId),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_CHANNEL' },
  },
  {
    name: 'a chat channel type that does not exist',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => ({ ...update(c), path: `/v2/callback/signal/${c.telegram.appId}` }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_CHANNEL' },
  },
  {
    name: 'a chat channel type of 5,000 characters',
    kind: 'huge',
    surface: S,
    request: (c) => ({
      ...update(c),
      path: `/v2/callback/${'t'.repeat(5000)}/${c.telegram.appId}`,
    }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_CHANNEL' },
  },
  {
    name: 'GET on the callback path',
    kind: 'wrong-method',
    surface: S,
    request: (c) => ({ method: 'GET', path: path(c.telegram.appId) }),
    expect: { status: 405, code: 'BW_ERR_METHOD_NOT_ALLOWED' },
  },

  // Content types.
  {
    name: 'text/plain body',
    kind: 'content-type',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id":1}', 'text/plain'),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'form-encoded body',
    kind: 'content-type',
    surface: S,
    request: (c) => rawUpdate(c, 'update_id=1', 'application/x-www-form-urlencoded'),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'multipart body',
    kind: 'content-type',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        '--x\r\ncontent-disposition: form-data; name="update_id"\r\n\r\n1\r\n--x--\r\n',
        'multipart/form-data; boundary=x',
      ),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'application/xml body',
    kind: 'content-type',
    surface: S,
    request: (c) => rawUpdate(c, '<update id="1"/>', 'application/xml'),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'JSON without a content type',
    kind: 'content-type',
    surface: S,
    request: (c) => ({
      ...rawUpdate(c, Buffer.from('{"update_id":1}')),
      headers: { 'x-telegram-bot-api-secret-token': c.telegram.secret },
    }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },

  // Bodies that are not JSON, or not UTF-8.
  {
    name: 'empty body',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, ''),
    expect: malformed,
  },
  {
    name: 'truncated JSON',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id": 1, "message": {'),
    expect: malformed,
  },
  {
    name: 'trailing comma',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id": 1,}'),
    expect: malformed,
  },
  {
    name: 'single-quoted JSON',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, "{'update_id': 1}"),
    expect: malformed,
  },
  {
    name: 'NaN as a number',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id": NaN}'),
    expect: malformed,
  },
  {
    name: 'two JSON documents',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id": 1}{"update_id": 2}'),
    expect: malformed,
  },
  {
    name: 'a JavaScript comment',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id": 1 /* hi */}'),
    expect: malformed,
  },
  {
    name: 'a raw control character inside a string',
    kind: 'malformed-json',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id": 1, "x": "a\u0001b"}'),
    expect: malformed,
  },
  {
    name: 'invalid UTF-8 bytes inside a string',
    kind: 'invalid-utf8',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        Buffer.concat([
          Buffer.from(
            `{"update_id": ${c.fresh()}, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}, "text": "`,
          ),
          Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
          Buffer.from('"}}'),
        ]),
      ),
    expect: malformed,
  },
  {
    name: 'an overlong UTF-8 encoding of "/"',
    kind: 'invalid-utf8',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        Buffer.concat([
          Buffer.from(`{"update_id": ${c.fresh()}, "x": "`),
          Buffer.from([0xc0, 0xaf]),
          Buffer.from('"}'),
        ]),
      ),
    expect: malformed,
  },
  {
    name: 'a UTF-8 encoded surrogate half',
    kind: 'invalid-utf8',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        Buffer.concat([
          Buffer.from(`{"update_id": ${c.fresh()}, "x": "`),
          Buffer.from([0xed, 0xa0, 0x80]),
          Buffer.from('"}'),
        ]),
      ),
    expect: malformed,
  },
  {
    name: 'UTF-16 encoded JSON',
    kind: 'invalid-utf8',
    surface: S,
    request: (c) => rawUpdate(c, Buffer.from('{"update_id": 1}', 'utf16le')),
    expect: malformed,
  },

  // Schema: wrong types, missing fields, out of range.
  {
    name: 'a JSON array instead of an update',
    kind: 'wrong-type',
    surface: S,
    request: (c) => rawUpdate(c, '[1,2,3]'),
    expect: schema,
  },
  {
    name: 'a JSON string instead of an update',
    kind: 'wrong-type',
    surface: S,
    request: (c) => rawUpdate(c, '"update"'),
    expect: schema,
  },
  {
    name: 'JSON null',
    kind: 'wrong-type',
    surface: S,
    request: (c) => rawUpdate(c, 'null'),
    expect: schema,
  },
  {
    name: 'missing update_id',
    kind: 'missing-field',
    surface: S,
    request: (c) => update(c, ({ update_id: _, ...u }) => u),
    expect: schema,
  },
  {
    name: 'update_id as a string',
    kind: 'wrong-type',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, update_id: String(u.update_id) })),
    expect: schema,
  },
  {
    name: 'negative update_id',
    kind: 'wrong-type',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, update_id: -1 })),
    expect: schema,
  },
  {
    name: 'fractional update_id',
    kind: 'wrong-type',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, update_id: 1.5 })),
    expect: schema,
  },
  {
    name: 'update_id 1e400 (Infinity once parsed)',
    kind: 'wrong-type',
    surface: S,
    request: (c) => rawUpdate(c, '{"update_id": 1e400}'),
    expect: schema,
  },
  {
    name: 'update_id null',
    kind: 'wrong-type',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, update_id: null })),
    expect: schema,
  },
  {
    name: 'message as a string',
    kind: 'wrong-type',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, message: 'hello' })),
    expect: schema,
  },
  {
    name: 'message without chat',
    kind: 'missing-field',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, message: { message_id: 1, date: 1, text: 'hi' } })),
    expect: schema,
  },
  {
    name: 'chat id as a string',
    kind: 'wrong-type',
    surface: S,
    request: (c) =>
      update(c, (u) => ({ ...u, message: message(c, { chat: { id: 'abc', type: 'private' } }) })),
    expect: schema,
  },
  {
    name: 'text as a number',
    kind: 'wrong-type',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, message: message(c, { text: 42 }) })),
    expect: schema,
  },
  {
    name: 'text of 4,097 characters',
    kind: 'huge',
    surface: S,
    request: (c) => update(c, (u) => ({ ...u, message: message(c, { text: 'x'.repeat(4097) }) })),
    expect: schema,
  },
  {
    name: 'text of 900 KiB',
    kind: 'huge',
    surface: S,
    request: (c) =>
      update(c, (u) => ({ ...u, message: message(c, { text: 'x'.repeat(900 * 1024) }) })),
    expect: schema,
  },
  {
    name: 'first_name of 10,000 characters',
    kind: 'huge',
    surface: S,
    request: (c) =>
      update(c, (u) => ({
        ...u,
        message: message(c, { from: { id: 1, first_name: 'n'.repeat(10_000) } }),
      })),
    expect: schema,
  },
  {
    name: 'callback_query without from',
    kind: 'missing-field',
    surface: S,
    request: (c) => update(c, ({ message: _, ...u }) => ({ ...u, callback_query: { id: 'q1' } })),
    expect: schema,
  },
  {
    name: 'callback data of 65 characters',
    kind: 'huge',
    surface: S,
    request: (c) =>
      update(c, ({ message: _, ...u }) => ({
        ...u,
        callback_query: { id: 'q1', from: { id: 1 }, data: 'd'.repeat(65) },
      })),
    expect: schema,
  },
  {
    name: 'edited_message as an array',
    kind: 'wrong-type',
    surface: S,
    request: (c) => update(c, ({ message: _, ...u }) => ({ ...u, edited_message: [] })),
    expect: schema,
  },

  // Prototype keys: refused while parsing (docs/edge.md), so nothing is quarantined.
  {
    name: '__proto__ at the top level',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) => rawUpdate(c, `{"update_id": ${c.fresh()}, "__proto__": {"polluted": true}}`),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: '__proto__ deep inside the message',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        `{"update_id": ${c.fresh()}, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private", "__proto__": {"isAdmin": true}}}}`,
      ),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: 'constructor.prototype',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) =>
      rawUpdate(c, `{"update_id": ${c.fresh()}, "constructor": {"prototype": {"polluted": true}}}`),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: '__proto__ spelled with \\u escapes',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) =>
      rawUpdate(c, `{"update_id": ${c.fresh()}, "\\u005f\\u005fproto\\u005f\\u005f": {"x": 1}}`),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: 'constructor spelled with a \\u escape',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        `{"update_id": ${c.fresh()}, "message": {"\\u0063onstructor": {"prototype": {"x": 1}}}}`,
      ),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },
  {
    name: '__proto__ key with space before the colon',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) => rawUpdate(c, `{"update_id": ${c.fresh()}, "__proto__"  \n : {"x": 1}}`),
    expect: { status: 400, code: 'BW_ERR_SCHEMA' },
  },

  // Nesting: deep documents must be refused, not crash the serialiser.
  {
    name: 'an unknown field nested 100,000 arrays deep',
    kind: 'nesting',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        `{"update_id": ${c.fresh()}, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}, "x": ${nested(100_000)}}}`,
      ),
    expect: malformed,
  },
  {
    name: 'an unknown field nested 10,000 objects deep',
    kind: 'nesting',
    surface: S,
    request: (c) =>
      rawUpdate(
        c,
        `{"update_id": ${c.fresh()}, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}, "x": ${nested(10_000, '{"a":', '}')}}}`,
      ),
    expect: malformed,
  },
  {
    name: 'the whole body nested 300,000 arrays deep',
    kind: 'nesting',
    surface: S,
    request: (c) => rawUpdate(c, nested(300_000)),
    expect: malformed,
  },

  // Injection attempts where text is checked: refused by the schema.
  {
    name: 'SQL injection in chat.type beyond its size',
    kind: 'sql-injection',
    surface: S,
    request: (c) =>
      update(c, (u) => ({
        ...u,
        message: message(c, {
          chat: { id: 1, type: "private'; drop table conversation_state; --" },
        }),
      })),
    expect: schema,
  },
  {
    name: 'template injection as the chat id',
    kind: 'template-injection',
    surface: S,
    request: (c) =>
      update(c, (u) => ({
        ...u,
        message: message(c, {
          chat: { id: "{{constructor.constructor('return process')()}}", type: 'private' },
        }),
      })),
    expect: schema,
  },

  // Size.
  {
    name: 'a body over HTTP_BODY_LIMIT_BYTES (1 MiB + 1)',
    kind: 'oversize',
    surface: S,
    request: (c) => rawUpdate(c, `{"update_id": 1, "x": "${'x'.repeat(1024 * 1024 - 22)}"}`),
    expect: { status: 413, code: 'BW_ERR_PAYLOAD_TOO_LARGE' },
  },
  {
    name: 'a 5 MiB body',
    kind: 'oversize',
    surface: S,
    request: (c) => rawUpdate(c, `{"update_id": 1, "x": "${'x'.repeat(5 * 1024 * 1024)}"}`),
    expect: { status: 413, code: 'BW_ERR_PAYLOAD_TOO_LARGE' },
  },
];

export const TELEGRAM_REPLAYS: ReplayCase[] = [
  {
    name: 'the same update delivered twice',
    kind: 'replay',
    surface: S,
    request: (c) => update(c),
    times: 2,
    publishes: 1,
  },
  {
    name: 'the same update delivered five times',
    kind: 'replay',
    surface: S,
    request: (c) => update(c),
    times: 5,
    publishes: 1,
  },
  {
    name: 'the same update_id with a different text (a forged replay keeps the first)',
    kind: 'replay',
    surface: S,
    request: (c) => update(c),
    vary: (first, n) => ({
      ...first,
      body: {
        ...(first.body as object),
        message: { ...(first.body as { message: object }).message, text: `changed ${n}` },
      },
    }),
    times: 3,
    publishes: 1,
  },
  {
    name: 'a replayed callback_query',
    kind: 'replay',
    surface: S,
    request: (c) =>
      update(c, ({ message: _, ...u }) => ({
        ...u,
        callback_query: { id: `q${c.fresh()}`, from: { id: 4242 }, data: 'menu' },
      })),
    times: 2,
    publishes: 1,
  },
];
