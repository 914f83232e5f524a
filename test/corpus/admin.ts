/** Hostile and malformed admin API calls: every route under src/api/admin, with and without the key. */
import { randomUUID } from 'node:crypto';
import type { CorpusContext, CorpusRequest, HttpCase } from './types.ts';
import { nested } from './types.ts';

const S = 'admin';
const TOKEN = '123456789:AAExampleTokenForTests_abcdefghijk';

const unauthorized = { status: 401, code: 'BW_ERR_UNAUTHORIZED' } as const;
const schema = { status: 400, code: 'BW_ERR_SCHEMA' } as const;
const malformed = { status: 400, code: 'BW_ERR_MALFORMED_JSON' } as const;
const unknownBot = { status: 404, code: 'BW_ERR_UNKNOWN_BOT' } as const;

/** Every admin route, as a request that would succeed or be refused for its ids only. */
const ROUTES: { name: string; request: (c: CorpusContext) => CorpusRequest }[] = [
  {
    name: 'POST /v2/bots',
    request: () => ({
      method: 'POST',
      path: '/v2/bots',
      body: { name: 'x', channel: { type: 'telegram', details: { bot_token: TOKEN } } },
    }),
  },
  { name: 'GET /v2/bots', request: () => ({ method: 'GET', path: '/v2/bots' }) },
  {
    name: 'GET /v2/bots/<app_id>',
    request: (c) => ({ method: 'GET', path: `/v2/bots/${c.telegram.appId}` }),
  },
  {
    name: 'PATCH /v2/bots/<app_id>',
    request: (c) => ({
      method: 'PATCH',
      path: `/v2/bots/${c.telegram.appId}`,
      body: { active: false },
    }),
  },
  {
    name: 'DELETE /v2/bots/<app_id>',
    request: (c) => ({ method: 'DELETE', path: `/v2/bots/${c.telegram.appId}` }),
  },
  {
    name: 'POST /v2/bots/<app_id>/channels',
    request: (c) => ({
      method: 'POST',
      path: `/v2/bots/${c.whatsapp.appId}/channels`,
      body: { type: 'telegram', details: { bot_token: TOKEN } },
    }),
  },
  {
    name: 'POST /v2/bots/<app_id>/channels/<channel_id>/webhook',
    request: (c) => ({
      method: 'POST',
      path: `/v2/bots/${c.telegram.appId}/channels/${c.telegram.channelId}/webhook`,
    }),
  },
  {
    name: 'GET /v2/bots/<app_id>/conversations',
    request: (c) => ({ method: 'GET', path: `/v2/bots/${c.telegram.appId}/conversations` }),
  },
  {
    name: 'GET /v2/conversations/<id>/messages',
    request: (c) => ({ method: 'GET', path: `/v2/conversations/${c.conversationId}/messages` }),
  },
];

/** Bad credentials, each tried on every route: 401 before anything is read or done. */
const BAD_AUTH: { name: string; headers: (c: CorpusContext) => Record<string, string> }[] = [
  { name: 'no Authorization header', headers: () => ({}) },
  { name: 'a wrong bearer key', headers: () => ({ authorization: `Bearer ${'k'.repeat(48)}` }) },
  {
    name: 'the key with its last character changed',
    headers: (c) => ({
      authorization: `Bearer ${c.adminKey.slice(0, -1)}${c.adminKey.endsWith('0') ? '1' : '0'}`,
    }),
  },
];

const authCases: HttpCase[] = ROUTES.flatMap((route) =>
  BAD_AUTH.map((bad): HttpCase => ({
    name: `${route.name} with ${bad.name}`,
    kind: 'forged-auth',
    surface: S,
    request: (c) => ({ ...route.request(c), auth: false, headers: bad.headers(c) }),
    expect: unauthorized,
  })),
);

const moreAuth: HttpCase[] = [
  {
    name: 'the key as HTTP Basic credentials',
    kind: 'forged-auth',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: '/v2/bots',
      auth: false,
      headers: { authorization: `Basic ${Buffer.from(`admin:${c.adminKey}`).toString('base64')}` },
    }),
    expect: unauthorized,
  },
  {
    name: 'the key without the Bearer scheme',
    kind: 'forged-auth',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: '/v2/bots',
      auth: false,
      headers: { authorization: c.adminKey },
    }),
    expect: unauthorized,
  },
  {
    name: 'the key with a prefix of the right key only',
    kind: 'forged-auth',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: '/v2/bots',
      auth: false,
      headers: { authorization: `Bearer ${c.adminKey.slice(0, 8)}` },
    }),
    expect: unauthorized,
  },
  {
    name: 'the key followed by more characters',
    kind: 'forged-auth',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: '/v2/bots',
      auth: false,
      headers: { authorization: `Bearer ${c.adminKey}0` },
    }),
    expect: unauthorized,
  },
  {
    name: 'an empty bearer token',
    kind: 'forged-auth',
    surface: S,
    request: () => ({
      method: 'GET',
      path: '/v2/bots',
      auth: false,
      headers: { authorization: 'Bearer ' },
    }),
    expect: unauthorized,
  },
  {
    name: 'the key in the query string',
    kind: 'forged-auth',
    surface: S,
    request: (c) => ({ method: 'GET', path: `/v2/bots?access_token=${c.adminKey}`, auth: false }),
    expect: unauthorized,
  },
  {
    name: "a Telegram channel's secret as the bearer key",
    kind: 'forged-auth',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: '/v2/bots',
      auth: false,
      headers: { authorization: `Bearer ${c.telegram.secret}` },
    }),
    expect: unauthorized,
  },
  {
    name: 'no key and a 3 MiB body: refused before reading it',
    kind: 'forged-auth',
    surface: S,
    request: () => ({
      method: 'POST',
      path: '/v2/bots',
      auth: false,
      raw: `{"name":"${'x'.repeat(3 * 1024 * 1024)}"}`,
      headers: { 'content-type': 'application/json' },
    }),
    expect: unauthorized,
  },
  {
    name: 'no key and a __proto__ body',
    kind: 'forged-auth',
    surface: S,
    request: () => ({
      method: 'POST',
      path: '/v2/bots',
      auth: false,
      raw: '{"__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    }),
    expect: unauthorized,
  },
];

const channel = { type: 'telegram', details: { bot_token: TOKEN } };

/** POST /v2/bots with `body` (as JSON unless a string). */
const create = (body: unknown): ((c: CorpusContext) => CorpusRequest) =>
  typeof body === 'string'
    ? () => ({
        method: 'POST',
        path: '/v2/bots',
        raw: body,
        headers: { 'content-type': 'application/json' },
      })
    : () => ({ method: 'POST', path: '/v2/bots', body });

const createCases: HttpCase[] = [
  {
    name: 'create: empty object',
    kind: 'missing-field',
    surface: S,
    request: create({}),
    expect: schema,
  },
  {
    name: 'create: no channel',
    kind: 'missing-field',
    surface: S,
    request: create({ name: 'a' }),
    expect: schema,
  },
  {
    name: 'create: no name',
    kind: 'missing-field',
    surface: S,
    request: create({ channel }),
    expect: schema,
  },
  {
    name: 'create: name as a number',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: 1, channel }),
    expect: schema,
  },
  {
    name: 'create: name as an array',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: ['a'], channel }),
    expect: schema,
  },
  {
    name: 'create: empty name',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: '', channel }),
    expect: schema,
  },
  {
    name: 'create: name of 201 characters',
    kind: 'huge',
    surface: S,
    request: create({ name: 'n'.repeat(201), channel }),
    expect: schema,
  },
  {
    name: 'create: name of 900 KiB',
    kind: 'huge',
    surface: S,
    request: create({ name: 'n'.repeat(900 * 1024), channel }),
    expect: schema,
  },
  {
    name: 'create: active as "yes"',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: 'a', active: 'yes', channel }),
    expect: schema,
  },
  {
    name: 'create: language as a number',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: 'a', language: 7, channel }),
    expect: schema,
  },
  {
    name: 'create: language with SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: create({ name: 'a', language: "en'; drop table bots; --", channel }),
    expect: schema,
  },
  {
    name: 'create: an unknown field',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: 'a', channel, admin: true }),
    expect: schema,
  },
  {
    name: 'create: channel as a string',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: 'a', channel: 'telegram' }),
    expect: schema,
  },
  {
    name: 'create: channel type signal',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: 'a', channel: { type: 'signal', details: {} } }),
    expect: schema,
  },
  {
    name: 'create: channel without details',
    kind: 'missing-field',
    surface: S,
    request: create({ name: 'a', channel: { type: 'telegram' } }),
    expect: schema,
  },
  {
    name: 'create: telegram without bot_token',
    kind: 'missing-field',
    surface: S,
    request: create({ name: 'a', channel: { type: 'telegram', details: {} } }),
    expect: schema,
  },
  {
    name: 'create: bot_token not shaped like a token',
    kind: 'wrong-type',
    surface: S,
    request: create({ name: 'a', channel: { type: 'telegram', details: { bot_token: 'abc' } } }),
    expect: schema,
  },
  {
    name: 'create: bot_token with a path in it',
    kind: 'wrong-type',
    surface: S,
    request: create({
      name: 'a',
      channel: { type: 'telegram', details: { bot_token: '1:AAAAAAAAAAAAAAAAAAAAAAAA/../../x' } },
    }),
    expect: schema,
  },
  {
    name: 'create: telegram details with an extra field',
    kind: 'wrong-type',
    surface: S,
    request: create({
      name: 'a',
      channel: { type: 'telegram', details: { bot_token: TOKEN, url: 'http://x' } },
    }),
    expect: schema,
  },
  {
    name: 'create: whatsapp without access_token',
    kind: 'missing-field',
    surface: S,
    request: create({
      name: 'a',
      channel: { type: 'whatsapp', details: { phone_number_id: '1' } },
    }),
    expect: schema,
  },
  {
    name: 'create: phone_number_id with letters',
    kind: 'wrong-type',
    surface: S,
    request: create({
      name: 'a',
      channel: { type: 'whatsapp', details: { phone_number_id: '12ab', access_token: 't' } },
    }),
    expect: schema,
  },
  {
    name: 'create: phone_number_id as a number',
    kind: 'wrong-type',
    surface: S,
    request: create({
      name: 'a',
      channel: { type: 'whatsapp', details: { phone_number_id: 12, access_token: 't' } },
    }),
    expect: schema,
  },
  {
    name: 'create: access_token of 2,000 characters',
    kind: 'huge',
    surface: S,
    request: create({
      name: 'a',
      channel: {
        type: 'whatsapp',
        details: { phone_number_id: '12', access_token: 't'.repeat(2000) },
      },
    }),
    expect: schema,
  },
  {
    name: 'create: empty app_secret',
    kind: 'wrong-type',
    surface: S,
    request: create({
      name: 'a',
      channel: {
        type: 'whatsapp',
        details: { phone_number_id: '12', access_token: 't', app_secret: '' },
      },
    }),
    expect: schema,
  },
  {
    name: 'create: a JSON array',
    kind: 'wrong-type',
    surface: S,
    request: create('[]'),
    expect: schema,
  },
  {
    name: 'create: JSON null',
    kind: 'wrong-type',
    surface: S,
    request: create('null'),
    expect: schema,
  },
  {
    name: 'create: __proto__ key',
    kind: 'prototype-pollution',
    surface: S,
    request: create(
      `{"name":"a","channel":${JSON.stringify(channel)},"__proto__":{"active":false}}`,
    ),
    expect: schema,
  },
  {
    name: 'create: constructor.prototype key',
    kind: 'prototype-pollution',
    surface: S,
    request: create(
      `{"name":"a","channel":${JSON.stringify(channel)},"constructor":{"prototype":{"x":1}}}`,
    ),
    expect: schema,
  },
  {
    name: 'create: __proto__ inside channel details',
    kind: 'prototype-pollution',
    surface: S,
    request: create(
      `{"name":"a","channel":{"type":"telegram","details":{"bot_token":"${TOKEN}","__proto__":{"x":1}}}}`,
    ),
    expect: schema,
  },
  {
    name: 'create: a name with a NUL character',
    kind: 'invalid-utf8',
    surface: S,
    request: create({ name: 'bad\u0000name', channel }),
    expect: schema,
  },
  {
    name: 'create: a name with a lone surrogate',
    kind: 'invalid-utf8',
    surface: S,
    request: create('{"name":"bad\\ud800name","channel":' + JSON.stringify(channel) + '}'),
    expect: schema,
  },
  {
    name: 'create: a name with invalid UTF-8 bytes',
    kind: 'invalid-utf8',
    surface: S,
    request: () => ({
      method: 'POST',
      path: '/v2/bots',
      headers: { 'content-type': 'application/json' },
      raw: Buffer.concat([
        Buffer.from('{"name":"'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from(`","channel":${JSON.stringify(channel)}}`),
      ]),
    }),
    expect: malformed,
  },
  {
    name: 'create: truncated JSON',
    kind: 'malformed-json',
    surface: S,
    request: create('{"name":"a","channel":{'),
    expect: malformed,
  },
  {
    name: 'create: empty body',
    kind: 'malformed-json',
    surface: S,
    request: create(''),
    expect: malformed,
  },
  {
    name: 'create: a body nested 200,000 arrays deep',
    kind: 'nesting',
    surface: S,
    request: create(nested(200_000)),
    expect: malformed,
  },
  {
    name: 'create: channel details nested 10,000 objects deep',
    kind: 'nesting',
    surface: S,
    request: create(
      `{"name":"a","channel":{"type":"telegram","details":${nested(10_000, '{"a":', '}')}}}`,
    ),
    expect: malformed,
  },
  {
    name: 'create: text/plain',
    kind: 'content-type',
    surface: S,
    request: () => ({
      method: 'POST',
      path: '/v2/bots',
      headers: { 'content-type': 'text/plain' },
      raw: JSON.stringify({ name: 'a', channel }),
    }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'create: multipart',
    kind: 'content-type',
    surface: S,
    request: () => ({
      method: 'POST',
      path: '/v2/bots',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      raw: '--b\r\ncontent-disposition: form-data; name="name"\r\n\r\na\r\n--b--\r\n',
    }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'create: a 2 MiB body',
    kind: 'oversize',
    surface: S,
    request: create(`{"name":"${'x'.repeat(2 * 1024 * 1024)}"}`),
    expect: { status: 413, code: 'BW_ERR_PAYLOAD_TOO_LARGE' },
  },
];

const id = (c: CorpusContext) => c.telegram.appId;
const bot =
  (suffix = '') =>
  (appId: string) =>
    `/v2/bots/${appId}${suffix}`;

const routeCases: HttpCase[] = [
  // Ids.
  {
    name: 'GET a bot: fresh UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'GET', path: bot()(randomUUID()) }),
    expect: unknownBot,
  },
  {
    name: 'GET a bot: not a UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'GET', path: bot()('12345') }),
    expect: unknownBot,
  },
  {
    name: 'GET a bot: SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: () => ({ method: 'GET', path: bot()(encodeURIComponent("' or 1=1 --")) }),
    expect: unknownBot,
  },
  {
    name: 'GET a bot: UUID with a trailing quote',
    kind: 'sql-injection',
    surface: S,
    request: (c) => ({ method: 'GET', path: bot()(`${id(c)}'`) }),
    expect: unknownBot,
  },
  {
    name: 'GET a bot: __proto__',
    kind: 'prototype-pollution',
    surface: S,
    request: () => ({ method: 'GET', path: bot()('__proto__') }),
    expect: unknownBot,
  },
  {
    name: 'PATCH a bot: fresh UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'PATCH', path: bot()(randomUUID()), body: { name: 'x' } }),
    expect: unknownBot,
  },
  {
    name: 'PATCH a bot: not a UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'PATCH', path: bot()('nope'), body: { name: 'x' } }),
    expect: unknownBot,
  },
  {
    name: 'DELETE a bot: fresh UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'DELETE', path: bot()(randomUUID()) }),
    expect: unknownBot,
  },
  {
    name: 'DELETE a bot: SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: () => ({ method: 'DELETE', path: bot()(encodeURIComponent("'; truncate bots; --")) }),
    expect: unknownBot,
  },
  {
    name: 'add channel: fresh UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'POST', path: bot('/channels')(randomUUID()), body: channel }),
    expect: unknownBot,
  },
  {
    name: 'add channel: not a UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'POST', path: bot('/channels')('x'), body: channel }),
    expect: unknownBot,
  },
  {
    name: 'webhook: fresh bot UUID',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => ({
      method: 'POST',
      path: bot(`/channels/${c.telegram.channelId}/webhook`)(randomUUID()),
    }),
    expect: unknownBot,
  },
  {
    name: 'webhook: channel id not a UUID',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => ({ method: 'POST', path: bot('/channels/1/webhook')(id(c)) }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_CHANNEL' },
  },
  {
    name: 'webhook: channel id of another bot',
    kind: 'unknown-bot',
    surface: S,
    request: (c) => ({
      method: 'POST',
      path: bot(`/channels/${c.whatsapp.channelId}/webhook`)(id(c)),
    }),
    expect: { status: 404, code: 'BW_ERR_UNKNOWN_CHANNEL' },
  },
  {
    name: 'webhook: a WhatsApp channel',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({
      method: 'POST',
      path: bot(`/channels/${c.whatsapp.channelId}/webhook`)(c.whatsapp.appId),
    }),
    expect: { status: 400, code: 'BW_ERR_UNSUPPORTED' },
  },
  {
    name: 'conversations: fresh UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'GET', path: bot('/conversations')(randomUUID()) }),
    expect: unknownBot,
  },
  {
    name: 'conversations: not a UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'GET', path: bot('/conversations')(encodeURIComponent('1 or 1=1')) }),
    expect: unknownBot,
  },
  {
    name: 'messages: fresh conversation UUID',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'GET', path: `/v2/conversations/${randomUUID()}/messages` }),
    expect: { status: 404, code: 'BW_ERR_NOT_FOUND' },
  },
  {
    name: 'messages: conversation id with SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: () => ({
      method: 'GET',
      path: `/v2/conversations/${encodeURIComponent("x' or '1'='1")}/messages`,
    }),
    expect: { status: 404, code: 'BW_ERR_NOT_FOUND' },
  },

  // Stream positions past what Redis holds (64 bits a part).
  {
    name: 'events: Last-Event-ID with milliseconds one past 2^64 - 1',
    kind: 'out-of-range',
    surface: S,
    request: () => ({
      method: 'GET',
      path: '/v2/events',
      headers: { 'last-event-id': '18446744073709551616-0' },
    }),
    expect: schema,
  },
  {
    name: 'events: last_event_id with a sequence of twenty nines',
    kind: 'out-of-range',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/events?last_event_id=1-99999999999999999999' }),
    expect: schema,
  },

  // Query strings.
  {
    name: 'list bots: limit 0',
    kind: 'wrong-type',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/bots?limit=0' }),
    expect: schema,
  },
  {
    name: 'list bots: limit 101',
    kind: 'huge',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/bots?limit=101' }),
    expect: schema,
  },
  {
    name: 'list bots: limit -1',
    kind: 'wrong-type',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/bots?limit=-1' }),
    expect: schema,
  },
  {
    name: 'list bots: limit 1e9',
    kind: 'huge',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/bots?limit=1e9' }),
    expect: schema,
  },
  {
    name: 'list bots: limit with SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: () => ({
      method: 'GET',
      path: `/v2/bots?limit=${encodeURIComponent('10; drop table bots')}`,
    }),
    expect: schema,
  },
  {
    name: 'list bots: limit given twice',
    kind: 'wrong-type',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/bots?limit=1&limit=2' }),
    expect: schema,
  },
  {
    name: 'list bots: after not a UUID',
    kind: 'wrong-type',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/bots?after=abc' }),
    expect: schema,
  },
  {
    name: 'list bots: after with SQL injection',
    kind: 'sql-injection',
    surface: S,
    request: () => ({
      method: 'GET',
      path: `/v2/bots?after=${encodeURIComponent("x') or ('1'='1")}`,
    }),
    expect: schema,
  },
  {
    name: 'list bots: after given twice',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'GET', path: `/v2/bots?after=${id(c)}&after=${id(c)}` }),
    expect: schema,
  },
  {
    name: 'conversations: limit 1000',
    kind: 'huge',
    surface: S,
    request: (c) => ({ method: 'GET', path: bot('/conversations?limit=1000')(id(c)) }),
    expect: schema,
  },
  {
    name: 'conversations: after not a UUID',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'GET', path: bot('/conversations?after=yesterday')(id(c)) }),
    expect: schema,
  },
  {
    name: 'messages: limit abc',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: `/v2/conversations/${c.conversationId}/messages?limit=abc`,
    }),
    expect: schema,
  },
  {
    name: 'messages: after not a message id',
    kind: 'sql-injection',
    surface: S,
    request: (c) => ({
      method: 'GET',
      path: `/v2/conversations/${c.conversationId}/messages?after=${encodeURIComponent('1 or 1=1')}`,
    }),
    expect: schema,
  },

  // PATCH bodies.
  {
    name: 'PATCH: empty object',
    kind: 'missing-field',
    surface: S,
    request: (c) => ({ method: 'PATCH', path: bot()(id(c)), body: {} }),
    expect: schema,
  },
  {
    name: 'PATCH: app_id is not patchable',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'PATCH', path: bot()(id(c)), body: { app_id: randomUUID() } }),
    expect: schema,
  },
  {
    name: 'PATCH: channels are not patchable',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'PATCH', path: bot()(id(c)), body: { channels: [] } }),
    expect: schema,
  },
  {
    name: 'PATCH: active as 0',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'PATCH', path: bot()(id(c)), body: { active: 0 } }),
    expect: schema,
  },
  {
    name: 'PATCH: name null',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'PATCH', path: bot()(id(c)), body: { name: null } }),
    expect: schema,
  },
  {
    name: 'PATCH: flow as a string',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'PATCH', path: bot()(id(c)), body: { flow: 'states: {}' } }),
    expect: schema,
  },
  {
    name: 'PATCH: __proto__ body',
    kind: 'prototype-pollution',
    surface: S,
    request: (c) => ({
      method: 'PATCH',
      path: bot()(id(c)),
      raw: '{"__proto__":{"active":false}}',
      headers: { 'content-type': 'application/json' },
    }),
    expect: schema,
  },
  {
    name: 'PATCH: a name with a NUL character',
    kind: 'invalid-utf8',
    surface: S,
    request: (c) => ({ method: 'PATCH', path: bot()(id(c)), body: { name: 'a\u0000b' } }),
    expect: schema,
  },
  {
    name: 'PATCH: form-encoded',
    kind: 'content-type',
    surface: S,
    request: (c) => ({
      method: 'PATCH',
      path: bot()(id(c)),
      raw: 'active=false',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },

  // Channel bodies.
  {
    name: 'add channel: empty body',
    kind: 'malformed-json',
    surface: S,
    request: (c) => ({
      method: 'POST',
      path: bot('/channels')(c.whatsapp.appId),
      raw: '',
      headers: { 'content-type': 'application/json' },
    }),
    expect: malformed,
  },
  {
    name: 'add channel: type as an array',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({
      method: 'POST',
      path: bot('/channels')(c.whatsapp.appId),
      body: { type: ['telegram'], details: {} },
    }),
    expect: schema,
  },
  {
    name: "add channel: another bot's WhatsApp number",
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({
      method: 'POST',
      path: bot('/channels')(id(c)),
      body: {
        type: 'whatsapp',
        details: { phone_number_id: c.whatsapp.number, access_token: 't' },
      },
    }),
    expect: { status: 409, code: 'BW_ERR_CONFLICT' },
  },
  {
    name: 'add channel: a second Telegram channel',
    kind: 'wrong-type',
    surface: S,
    request: (c) => ({ method: 'POST', path: bot('/channels')(id(c)), body: channel }),
    expect: { status: 409, code: 'BW_ERR_CONFLICT' },
  },

  // Methods and paths.
  {
    name: 'PUT /v2/bots',
    kind: 'wrong-method',
    surface: S,
    request: () => ({ method: 'PUT', path: '/v2/bots', body: {} }),
    expect: { status: 405, code: 'BW_ERR_METHOD_NOT_ALLOWED' },
  },
  {
    name: 'DELETE /v2/bots (all bots)',
    kind: 'wrong-method',
    surface: S,
    request: () => ({ method: 'DELETE', path: '/v2/bots' }),
    expect: { status: 405, code: 'BW_ERR_METHOD_NOT_ALLOWED' },
  },
  {
    name: 'GET a path under /v2 that does not exist',
    kind: 'unknown-bot',
    surface: S,
    request: () => ({ method: 'GET', path: '/v2/admin/../bots%2F..%2F..%2Fetc%2Fpasswd' }),
    expect: { status: 404, code: 'BW_ERR_NOT_FOUND' },
  },
];

export const ADMIN_CASES: HttpCase[] = [...authCases, ...moreAuth, ...createCases, ...routeCases];
