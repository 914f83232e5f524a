/**
 * A bot's channels changed and removed through the admin API: a web channel's origins replaced
 * with its visitors' tokens still good, a Telegram token replaced with its webhook secret kept,
 * bad details refused at their field, and a channel removed with its conversations while the
 * bot's other channels and its test chats' console channel stay.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { BotStore } from '../../src/shared/bots/store.ts';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from '../support/api.ts';
import { createWebBot, postVisitorMessage, SHOP_ORIGIN, startSession } from '../support/web.ts';

describe('admin API: changing and removing channels', () => {
  let t: TestApi;

  before(async () => {
    t = await startTestApi();
  });

  after(async () => {
    await t?.stop();
  });

  it('when a web channel’s origins are replaced, then the new ones are allowed, the old ones not, and tokens handed out before still work', async () => {
    const { appId, channelId } = await createWebBot(t);
    const visitor = await startSession(t, appId);
    const other = 'https://other.example.test';
    const changed = await t.call('PATCH', `/v2/bots/${appId}/channels/${channelId}`, {
      body: { details: { allowed_origins: [SHOP_ORIGIN, other] } },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.json.allowed_origins).to.deep.equal([SHOP_ORIGIN, other]);
    const sent = await postVisitorMessage(t, appId, visitor.token, {
      client_message_id: 'after-change',
      text: 'still me',
    });
    expect(sent.status, sent.text).to.equal(202);

    await t.call('PATCH', `/v2/bots/${appId}/channels/${channelId}`, {
      body: { details: { allowed_origins: [other] } },
    });
    const refused = await postVisitorMessage(t, appId, visitor.token, {
      client_message_id: 'from-shop',
      text: 'hi',
    });
    expect(refused.json.error.code).to.equal('BW_ERR_ORIGIN_REFUSED');
  });

  it('when the details do not fit the channel’s type, then 400 BW_ERR_SCHEMA names the field and nothing changes', async () => {
    const { appId, channelId } = await createWebBot(t);
    const bad = await t.call('PATCH', `/v2/bots/${appId}/channels/${channelId}`, {
      body: { details: { allowed_origins: ['https://shop.example.test/path'] } },
    });
    expect(bad.status).to.equal(400);
    expect(bad.json.error.code).to.equal('BW_ERR_SCHEMA');
    expect(bad.json.error.details.problems.map((p: { path: string }) => p.path)).to.include(
      '/details/allowed_origins/0',
    );
    const wrongType = await t.call('PATCH', `/v2/bots/${appId}/channels/${channelId}`, {
      body: { details: { bot_token: TELEGRAM_TOKEN } },
    });
    expect(wrongType.json.error.code).to.equal('BW_ERR_SCHEMA');
    const bot = (await t.call('GET', `/v2/bots/${appId}`)).json;
    expect(bot.channels[0].allowed_origins).to.deep.equal([SHOP_ORIGIN]);
  });

  it('when a Telegram token is replaced, then the webhook is to be registered again and its secret stays', async () => {
    const created = await t.call('POST', '/v2/bots', {
      body: { name: 'tg', channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
    });
    const appId = created.json.app_id;
    const channelId = created.json.channels[0].id;
    const store = new BotStore({ db: t.api.db, credentialsKey: t.config.credentialsKey! });
    const secretOf = async () => {
      const secrets = (await store.getBot(appId))?.channels[0]?.secrets;
      if (secrets?.type !== 'telegram') throw new Error('no telegram channel');
      return secrets;
    };
    const before = await secretOf();
    await t.api
      .db('channels')
      .where({ id: channelId })
      .update({ webhook_registered_at: new Date() });
    const changed = await t.call('PATCH', `/v2/bots/${appId}/channels/${channelId}`, {
      body: { details: { bot_token: '987654321:AAAnotherTokenForTests_abcdefghijkl' } },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.json.webhook_registered_at).to.equal(null);
    expect(changed.text).to.not.include('AAAnotherToken');
    const after = await secretOf();
    expect(after.details.bot_token).to.equal('987654321:AAAnotherTokenForTests_abcdefghijkl');
    expect(after.secret_token).to.equal(before.secret_token);
  });

  it('when a WhatsApp number’s messaging limit is set on its own, then the channel shows it, its access token still opens, the change is audited, and other platforms or values are refused', async () => {
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'Tiered',
        channel: {
          type: 'whatsapp',
          details: {
            phone_number_id: '7000111',
            access_token: 'wa-secret',
            business_account_id: '42',
          },
        },
      },
    });
    const appId: string = created.json.app_id;
    const channelId: string = created.json.channels[0].id;
    expect(created.json.channels[0].messaging_limit).to.equal(250);
    const path = `/v2/bots/${appId}/channels/${channelId}/messaging-limit`;
    const set = await t.call('PUT', path, { body: { messaging_limit: 10000 } });
    expect(set.status, set.text).to.equal(200);
    expect(set.json).to.deep.include({ messaging_limit: 10000, business_account_id: '42' });
    const store = new BotStore({ db: t.api.db, credentialsKey: t.config.credentialsKey! });
    const channel = (await store.getBot(appId))!.channels[0]!;
    expect(channel.secrets).to.deep.include({
      type: 'whatsapp',
      details: {
        phone_number_id: '7000111',
        access_token: 'wa-secret',
        business_account_id: '42',
        messaging_limit: 10000,
      },
    });
    const audit = await t.call('GET', `/v2/audit?action=channel.messaging_limit`);
    expect(audit.json.items[0].summary).to.deep.equal({
      before: { messaging_limit: 250 },
      after: { messaging_limit: 10000 },
    });

    for (const body of [{ messaging_limit: 500 }, { messaging_limit: '1000' }, {}]) {
      const bad = await t.call('PUT', path, { body });
      expect([bad.status, bad.json.error.code], JSON.stringify(body)).to.deep.equal([
        400,
        'BW_ERR_SCHEMA',
      ]);
    }
    const web = await createWebBot(t);
    const other = await t.call(
      'PUT',
      `/v2/bots/${web.appId}/channels/${web.channelId}/messaging-limit`,
      { body: { messaging_limit: 1000 } },
    );
    expect([other.status, other.json.error.code]).to.deep.equal([404, 'BW_ERR_UNKNOWN_CHANNEL']);
  });

  it('when a channel is removed, then its conversations go with it, the bot and its other channels stay, and the console channel or an unknown id is 404', async () => {
    const { appId, channelId } = await createWebBot(t);
    const telegram = await t.call('POST', `/v2/bots/${appId}/channels`, {
      body: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
    });
    expect(telegram.status, telegram.text).to.equal(201);
    const conversation = randomUUID();
    const pid = `web:${randomUUID()}`;
    await t.api.db('users').insert({ pid, channel_type: 'web' });
    await t.api.db('conversations').insert({
      id: conversation,
      app_id: appId,
      channel_id: channelId,
      user_pid: pid,
      chat_id: 'v_1',
    });
    const chat = await t.call('POST', `/v2/bots/${appId}/test-chats`, { body: {} });
    expect(chat.status, chat.text).to.equal(201);
    const consoleChannel = await t.api
      .db('channels')
      .where({ app_id: appId, type: 'console' })
      .first('id');

    const removed = await t.call('DELETE', `/v2/bots/${appId}/channels/${channelId}`);
    expect(removed.status, removed.text).to.equal(204);
    const bot = (await t.call('GET', `/v2/bots/${appId}`)).json;
    expect(bot.channels.map((c: { type: string }) => c.type)).to.deep.equal(['telegram']);
    expect(await t.api.db('conversations').where({ id: conversation }).first()).to.equal(undefined);

    for (const id of [channelId, consoleChannel.id, randomUUID(), 'not-a-uuid']) {
      const again = await t.call('DELETE', `/v2/bots/${appId}/channels/${id}`);
      expect([again.status, again.json.error.code]).to.deep.equal([404, 'BW_ERR_UNKNOWN_CHANNEL']);
    }
    const audit = await t.api.db('audit_log').where({ action: 'channel.delete' }).first();
    expect(audit).to.deep.include({ target_id: channelId, app_id: appId });
  });
});
