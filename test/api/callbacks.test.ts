import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import nock from 'nock';
import { quarantineKey } from '../../src/api/callbacks/accept.ts';
import { clearTopic } from '../support/services.ts';
import {
  createTelegramBot,
  startTestApi,
  topicMessages,
  whatsappPayload,
  type TestApi,
} from '../support/api.ts';

const sign = (body: string, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex')}`;

describe('platform callbacks', () => {
  let t: TestApi;
  let waAppId: string;
  let tgAppId: string;
  let tgSecret: string;
  const appSecret = 'whatsapp-app-secret-for-tests';
  const number = '106540352242922';

  const channelTopic = () => topicMessages(t.redis, t.prefix, 'channel');

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
    const wa = await t.call('POST', '/v2/bots', {
      body: {
        name: 'wa',
        channel: {
          type: 'whatsapp',
          details: {
            phone_number_id: number,
            access_token: 'EAAG-token',
            app_secret: appSecret,
            verify_token: 'verify-me',
          },
        },
      },
    });
    expect(wa.status).to.equal(201);
    waAppId = wa.json.app_id;
    // The secret token reaches Telegram only: learn it the way Telegram does, through setWebhook.
    ({ appId: tgAppId, secret: tgSecret } = await createTelegramBot(t, { name: 'tg' }));
  });

  afterEach(async () => {
    await clearTopic(t.redis, t.prefix, 'channel');
    await t.redis.del(quarantineKey(t.prefix));
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await t.stop();
  });

  describe('WhatsApp', () => {
    const post = (payload: unknown, headers: Record<string, string> = {}, path = '/callback') => {
      const raw = JSON.stringify(payload);
      return t.call('POST', path, {
        raw,
        auth: false,
        headers: { 'x-hub-signature-256': sign(raw, appSecret), ...headers },
      });
    };

    it('when the seed text payload arrives, then exactly one channel message carries sender, text and id; a repeat publishes nothing', async () => {
      const payload = whatsappPayload(number, [{ id: 'wamid.HBgL1', body: 'hola, ¿qué tal? 👋' }]);
      const first = await post(payload);
      expect(first.status).to.equal(200);
      expect(first.json).to.deep.equal({ ok: true, accepted: 1, duplicates: 0 });
      const [message, ...rest] = await channelTopic();
      expect(rest).to.have.length(0);
      expect(message).to.include({ source: 'whatsapp', intent: 'channel_in' });
      expect(message.turn_id).to.be.a('string');
      expect(message.ordering_key, 'one conversation, one order').to.equal(
        `${waAppId}:15550002222`,
      );
      expect(message.bot_input).to.include({
        kind: 'message',
        app_id: waAppId,
        channel_type: 'whatsapp',
      });
      expect(message.bot_input.message).to.include({ from: '15550002222', id: 'wamid.HBgL1' });
      expect(message.bot_input.message.text.body).to.equal('hola, ¿qué tal? 👋');
      expect(message.bot_input.contact).to.deep.equal({
        profile: { name: 'Ana' },
        wa_id: '15550002222',
      });

      const again = await post(payload);
      expect(again.json).to.deep.equal({ ok: true, accepted: 0, duplicates: 1 });
      expect(await channelTopic()).to.have.length(1);
    });

    it('when a payload holds several entries, changes, messages and statuses, then all are handled', async () => {
      const payload = whatsappPayload(number, [
        { id: 'wamid.m1', body: 'one' },
        { id: 'wamid.m2', body: 'two' },
      ]) as { entry: { changes: { value: Record<string, unknown> }[] }[] };
      payload.entry.push({
        changes: [
          {
            value: {
              ...payload.entry[0]!.changes[0]!.value,
              messages: [
                {
                  from: '15550003333',
                  id: 'wamid.m3',
                  timestamp: '1700000001',
                  type: 'text',
                  text: { body: 'three' },
                },
              ],
              statuses: [
                {
                  id: 'wamid.out1',
                  status: 'delivered',
                  timestamp: '1700000002',
                  recipient_id: '15550002222',
                },
              ],
            },
            field: 'messages',
          } as never,
        ],
        id: 'WABA2',
      } as never);
      const response = await post(payload);
      expect(response.json).to.deep.equal({ ok: true, accepted: 4, duplicates: 0 });
      const messages = await channelTopic();
      const ids = messages
        .filter((m) => m.bot_input.kind === 'message')
        .map((m) => m.bot_input.message.id as string);
      expect([...ids].sort()).to.deep.equal(['wamid.m1', 'wamid.m2', 'wamid.m3']);
      // Order is kept per conversation (m1 and m2 share a sender), not across conversations.
      expect(ids.indexOf('wamid.m1')).to.be.lessThan(ids.indexOf('wamid.m2'));
      const [status] = messages.filter((m) => m.bot_input.kind === 'status');
      expect(status.bot_input.status).to.include({ id: 'wamid.out1', status: 'delivered' });
    });

    it('when the body with emoji and non-ASCII text is signed, then it passes; tampered or unsigned, then 401 and nothing published', async () => {
      const raw = JSON.stringify(
        whatsappPayload(number, [{ id: 'wamid.sig', body: 'Grüße 🌍 — 日本語' }]),
      );
      const tampered = raw.replace('Grüße', 'Grusse');
      const bad = await t.call('POST', '/callback', {
        raw: tampered,
        auth: false,
        headers: { 'x-hub-signature-256': sign(raw, appSecret) },
      });
      expect(bad.status).to.equal(401);
      expect(bad.json.error.code).to.equal('BW_ERR_BAD_SIGNATURE');
      const unsigned = await t.call('POST', '/callback', { raw, auth: false });
      expect(unsigned.status).to.equal(401);
      expect(unsigned.json.error.code).to.equal('BW_ERR_BAD_SIGNATURE');
      expect(await channelTopic()).to.have.length(0);
      const good = await t.call('POST', '/callback', {
        raw,
        auth: false,
        headers: { 'x-hub-signature-256': sign(raw, appSecret) },
      });
      expect(good.status).to.equal(200);
      expect((await channelTopic())[0].bot_input.message.text.body).to.equal('Grüße 🌍 — 日本語');
    });

    it('when posted to the per-bot path, then it is handled as on /callback', async () => {
      const response = await post(
        whatsappPayload(number, [{ id: 'wamid.path', body: 'x' }]),
        {},
        `/v2/callback/whatsapp/${waAppId}`,
      );
      expect(response.status).to.equal(200);
      expect(await channelTopic()).to.have.length(1);
    });

    it('when a payload names more than ten phone numbers, then 400 before any lookup', async () => {
      const payload = whatsappPayload(number, [{ id: 'wamid.many', body: 'x' }]) as {
        entry: unknown[];
      };
      const entry = payload.entry[0] as {
        changes: { value: { metadata: Record<string, string> } }[];
      };
      payload.entry = Array.from({ length: 11 }, (_, i) => ({
        id: `E${i}`,
        changes: [
          {
            field: 'messages',
            value: { ...entry.changes[0]!.value, metadata: { phone_number_id: `9${i}` } },
          },
        ],
      }));
      const response = await post(payload);
      expect(response.status).to.equal(400);
      expect(response.json.error.code).to.equal('BW_ERR_SCHEMA');
      expect(await channelTopic()).to.have.length(0);
    });

    it('when the phone_number_id is unknown, then 404 BW_ERR_UNKNOWN_BOT and nothing published', async () => {
      const response = await post(whatsappPayload('999999', [{ id: 'wamid.x', body: 'x' }]));
      expect(response.status).to.equal(404);
      expect(response.json.error.code).to.equal('BW_ERR_UNKNOWN_BOT');
      expect(await channelTopic()).to.have.length(0);
    });

    it('when an authentic payload fails the schema, then 400 with the path, kept in quarantine, nothing published', async () => {
      const payload = whatsappPayload(number, [{ id: 'wamid.q', body: 'x' }]) as {
        entry: { changes: { value: { messages: Record<string, unknown>[] } }[] }[];
      };
      delete payload.entry[0]!.changes[0]!.value.messages[0]!.text;
      const response = await post(payload);
      expect(response.status).to.equal(400);
      expect(response.json.error.code).to.equal('BW_ERR_SCHEMA');
      expect(response.json.error.details.problems[0].path).to.equal(
        '/entry/0/changes/0/value/messages/0/text',
      );
      expect(await channelTopic()).to.have.length(0);
      const [[, fields]] = (await t.redis.xrange(quarantineKey(t.prefix), '-', '+')) as [
        [string, string[]],
      ];
      expect(fields[fields.indexOf('body') + 1]).to.equal(JSON.stringify(payload));
    });

    it('when the verification handshake names the verify token, then the challenge is echoed; otherwise 403', async () => {
      const ok = await t.call(
        'GET',
        '/callback?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444',
        { auth: false },
      );
      expect(ok.status).to.equal(200);
      expect(ok.text).to.equal('1158201444');
      const bad = await t.call(
        'GET',
        '/callback?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1',
        { auth: false },
      );
      expect(bad.status).to.equal(403);
      expect(bad.json.error.code).to.equal('BW_ERR_VERIFY_TOKEN');
    });
  });

  describe('Telegram', () => {
    const update = (id: number) => ({
      update_id: id,
      message: {
        message_id: 5,
        date: 1700000000,
        chat: { id: 42, type: 'private' },
        from: { id: 42, first_name: 'Ana' },
        text: 'hello',
      },
    });
    const post = (
      body: unknown,
      headers: Record<string, string> = { 'x-telegram-bot-api-secret-token': tgSecret },
      appId = tgAppId,
    ) =>
      t.call('POST', `/v2/callback/telegram/${appId}`, {
        auth: false,
        headers,
        ...(typeof body === 'string' ? { raw: body } : { body }),
      });

    it('when the secret matches, then the update is published once per update_id', async () => {
      expect((await post(update(1001))).json).to.deep.equal({ ok: true, duplicate: false });
      expect((await post(update(1001))).json).to.deep.equal({ ok: true, duplicate: true });
      const [message, ...rest] = await channelTopic();
      expect(rest).to.have.length(0);
      expect(message).to.include({
        source: 'telegram',
        intent: 'channel_in',
        ordering_key: `${tgAppId}:42`,
      });
      expect(message.bot_input).to.include({
        kind: 'update',
        update_kind: 'message',
        app_id: tgAppId,
      });
      expect(message.bot_input.update.message.text).to.equal('hello');
    });

    it('when the update is of a kind botwire does not handle, then 200 and nothing published', async () => {
      const response = await post({ update_id: 7, my_chat_member: { chat: { id: 1 } } });
      expect(response.json).to.deep.equal({ ok: true, ignored: true });
      expect(await channelTopic()).to.have.length(0);
    });

    const refusals: [string, () => Promise<{ status: number; json: any }>, number, string][] = [
      [
        'the secret is wrong',
        () => post(update(1), { 'x-telegram-bot-api-secret-token': 'wrong' }),
        401,
        'BW_ERR_BAD_SECRET',
      ],
      ['the secret is missing', () => post(update(1), {}), 401, 'BW_ERR_BAD_SECRET'],
      [
        'the app_id is unknown',
        () => post(update(1), undefined, '6f1c1f8e-0000-4000-8000-000000000000'),
        404,
        'BW_ERR_UNKNOWN_BOT',
      ],
      [
        'the app_id is not even an id',
        () => post(update(1), undefined, 'nope'),
        404,
        'BW_ERR_UNKNOWN_BOT',
      ],
      ['the JSON is malformed', () => post('{"update_id": 1,'), 400, 'BW_ERR_MALFORMED_JSON'],
      ['the update fails the schema', () => post({ update_id: 'one' }), 400, 'BW_ERR_SCHEMA'],
      [
        'the body is over the size limit',
        () => post({ update_id: 1, message: { text: 'x'.repeat(1_100_000) } }),
        413,
        'BW_ERR_PAYLOAD_TOO_LARGE',
      ],
      [
        'the body is not JSON',
        () =>
          t.call('POST', `/v2/callback/telegram/${tgAppId}`, {
            auth: false,
            raw: 'a=b',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-telegram-bot-api-secret-token': tgSecret,
            },
          }),
        415,
        'BW_ERR_UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        'a key is __proto__',
        () => post('{"update_id":1,"__proto__":{"polluted":true}}'),
        400,
        'BW_ERR_SCHEMA',
      ],
    ];
    for (const [when, send, status, code] of refusals) {
      it(`when ${when}, then ${status} ${code} and the topic is unchanged`, async () => {
        const response = await send();
        expect(response.status, JSON.stringify(response.json)).to.equal(status);
        expect(response.json.error.code).to.equal(code);
        expect(response.json.error.message).to.be.a('string').and.not.empty;
        expect(await channelTopic()).to.have.length(0);
      });
    }

    it('when a prototype key hides deep in the update, then 400; the same words inside a text are fine', async () => {
      const deep = await post(
        '{"update_id":5,"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"x":{"y":{"constructor":{"prototype":1}}}}}',
      );
      expect(deep.status).to.equal(400);
      expect(deep.json.error.code).to.equal('BW_ERR_SCHEMA');
      const text = await post({
        update_id: 6,
        message: {
          message_id: 1,
          date: 1,
          chat: { id: 1, type: 'private' },
          text: 'my JSON: {"constructor": 1}',
        },
      });
      expect(text.status, JSON.stringify(text.json)).to.equal(200);
    });

    it('when an authentic update fails the schema, then the failing path is named and it is quarantined', async () => {
      const response = await post({
        update_id: 3,
        message: { message_id: 1, date: 1, chat: { id: 'x', type: 'private' } },
      });
      expect(response.json.error.details.problems).to.deep.include({
        path: '/message/chat/id',
        message: 'must be integer',
      });
      expect(await t.redis.xlen(quarantineKey(t.prefix))).to.equal(1);
    });

    it('when the bot is switched off, then 404 BW_ERR_BOT_INACTIVE until it is switched on again', async () => {
      expect(
        (await t.call('PATCH', `/v2/bots/${tgAppId}`, { body: { active: false } })).status,
      ).to.equal(200);
      const off = await post(update(2001));
      expect(off.status).to.equal(404);
      expect(off.json.error.code).to.equal('BW_ERR_BOT_INACTIVE');
      await t.call('PATCH', `/v2/bots/${tgAppId}`, { body: { active: true } });
      expect((await post(update(2001))).status).to.equal(200);
    });
  });
});
