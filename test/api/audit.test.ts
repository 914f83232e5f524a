/**
 * The audit log through the real edge (real Redis and Postgres): every kind of admin change writes
 * one row with its action, actor, address and target; no secret used in the test appears anywhere
 * in the table; failed changes write nothing; a lost audit write leaves the change standing.
 */
import { expect } from 'chai';
import nock from 'nock';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from '../support/api.ts';
import { multipartBody, postMultipart } from '../support/multipart.ts';

const WHATSAPP = {
  phone_number_id: '1098765432109876',
  access_token: 'EAAG-whatsapp-access-token-for-audit-tests-0001',
  app_secret: 'wa-app-secret-for-audit-tests-0002',
  verify_token: 'wa-verify-token-for-audit-tests-0003',
};
const FLOW = {
  version: 1,
  start: 'a',
  states: { a: { actions: [{ send: { text: 'hi' } }], end: true } },
};
const BOUNDARY = 'auditBoundary7q';
const origin = 'https://bots.example.test';

interface Row {
  id: string;
  actor: string;
  account_id: string | null;
  address: string;
  action: string;
  target_type: string;
  target_id: string | null;
  app_id: string | null;
  summary: { before?: Record<string, unknown>; after?: Record<string, unknown> };
}

describe('audit log: changes recorded', function () {
  this.timeout(60_000);
  let t: TestApi;
  let storageDir: string;
  let appId: string;
  let channelId: string;
  let webhookSecret = '';
  let sessionCookie = '';

  const rows = async (): Promise<Row[]> => t.api.db('audit_log').orderBy('id', 'asc').select('*');
  const count = async (): Promise<number> => (await rows()).length;
  /** The rows written since `before` rows existed. */
  const since = async (before: number): Promise<Row[]> => (await rows()).slice(before);

  /** Runs `change` and returns the one row it wrote (fails if it wrote none or several). */
  async function oneRow(change: () => Promise<{ status: number }>, status: number): Promise<Row> {
    const before = await count();
    const result = await change();
    expect(result.status, JSON.stringify(result)).to.equal(status);
    const written = await since(before);
    expect(written, 'rows written').to.have.length(1);
    return written[0]!;
  }

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    storageDir = await mkdtemp(join(tmpdir(), 'bw-audit-'));
    t = await startTestApi({ STORAGE_DIR: storageDir });
  });

  after(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
    await rm(storageDir, { recursive: true, force: true });
  });

  it('when a bot is created, then one bot.create row by admin-key from the peer address, naming the bot and its channel type, without the token', async () => {
    let created: { status: number; json: any } = { status: 0, json: undefined };
    const row = await oneRow(async () => {
      created = await t.call('POST', '/v2/bots', {
        body: {
          name: 'audited',
          flow: FLOW,
          channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
        },
      });
      return created;
    }, 201);
    appId = created.json.app_id;
    channelId = created.json.channels[0].id;
    expect(row).to.include({
      action: 'bot.create',
      actor: 'admin-key',
      account_id: null,
      target_type: 'bot',
      target_id: appId,
      app_id: appId,
    });
    expect(row.address).to.match(/127\.0\.0\.1/);
    expect(row.summary.after).to.deep.include({ name: 'audited', active: true });
    expect(row.summary.after?.channels).to.deep.equal([{ type: 'telegram', id: channelId }]);
  });

  it("when a bot is renamed, then bot.update holds the changed field's before and after only", async () => {
    const row = await oneRow(
      () => t.call('PATCH', `/v2/bots/${appId}`, { body: { name: 'renamed', active: true } }),
      200,
    );
    expect(row).to.include({ action: 'bot.update', target_id: appId, app_id: appId });
    expect(row.summary).to.deep.equal({ before: { name: 'audited' }, after: { name: 'renamed' } });
  });

  it('when the Telegram webhook is registered, then webhook.register names the channel', async () => {
    nock(t.config.providers.telegramApiUrl)
      .post(`/bot${TELEGRAM_TOKEN}/setWebhook`, (form: Record<string, string>) => {
        webhookSecret = form.secret_token ?? '';
        return true;
      })
      .reply(200, { ok: true, result: true });
    const row = await oneRow(
      () => t.call('POST', `/v2/bots/${appId}/channels/${channelId}/webhook`),
      200,
    );
    expect(webhookSecret).to.have.length.above(10);
    expect(row).to.include({
      action: 'webhook.register',
      target_type: 'channel',
      target_id: channelId,
      app_id: appId,
    });
  });

  it('when WhatsApp and web channels are added, then channel.create rows carry type and id only', async () => {
    let added: { status: number; json: any } = { status: 0, json: undefined };
    const wa = await oneRow(async () => {
      added = await t.call('POST', `/v2/bots/${appId}/channels`, {
        body: { type: 'whatsapp', details: WHATSAPP },
      });
      return added;
    }, 201);
    expect(wa).to.include({ action: 'channel.create', target_type: 'channel', app_id: appId });
    expect(wa.target_id).to.equal(added.json.id);
    expect(wa.summary).to.deep.equal({ after: { type: 'whatsapp', id: added.json.id } });
    const web = await oneRow(
      () =>
        t.call('POST', `/v2/bots/${appId}/channels`, {
          body: { type: 'web', details: { allowed_origins: ['https://shop.example.test'] } },
        }),
      201,
    );
    expect(web.summary.after).to.include({ type: 'web' });
  });

  it('when a draft is saved, published and rolled back, then flow.draft.save, flow.publish and flow.rollback with version numbers', async () => {
    const draft = await oneRow(
      () =>
        t.call('PUT', `/v2/bots/${appId}/flow/draft`, {
          body: { flow: { ...FLOW, states: { ...FLOW.states, b: { end: true } } } },
        }),
      200,
    );
    expect(draft).to.include({ action: 'flow.draft.save', target_type: 'flow', target_id: appId });
    expect(draft.summary.after).to.deep.equal({ states: ['a', 'b'] });
    const publish = await oneRow(
      () => t.call('POST', `/v2/bots/${appId}/flow/publish`, { body: { note: 'adds b' } }),
      201,
    );
    expect(publish.action).to.equal('flow.publish');
    expect(publish.summary).to.deep.equal({
      before: { version: 1 },
      after: { version: 2, note: 'adds b' },
    });
    const rollback = await oneRow(
      () => t.call('POST', `/v2/bots/${appId}/flow/versions/1/publish`),
      200,
    );
    expect(rollback.action).to.equal('flow.rollback');
    expect(rollback.summary).to.deep.equal({ before: { version: 2 }, after: { version: 1 } });
    await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: FLOW } });
    const dropped = await oneRow(() => t.call('DELETE', `/v2/bots/${appId}/flow/draft`), 204);
    expect(dropped.action).to.equal('flow.draft.delete');
  });

  it('when a flow is only validated, then nothing is written', async () => {
    const before = await count();
    const result = await t.call('POST', '/v2/flows/validate', { body: FLOW });
    expect(result.status).to.equal(200);
    expect(await count()).to.equal(before);
  });

  it('when a collection is patched, uploaded to and indexed, then collection.update, collection.upload and collection.index', async () => {
    const patch = await oneRow(
      () => t.call('PATCH', '/v2/collections/faq', { body: { owner_app_id: appId } }),
      200,
    );
    expect(patch).to.include({
      action: 'collection.update',
      target_type: 'collection',
      target_id: 'faq',
    });
    expect(patch.summary).to.deep.equal({
      before: {},
      after: { owner_app_id: appId, shared: false },
    });
    const upload = await oneRow(
      () =>
        postMultipart(
          t,
          '/v2/collections/faq/files',
          BOUNDARY,
          multipartBody(BOUNDARY, [{ filename: 'hours.csv', content: 'day,hours\nmonday,9-17\n' }]),
        ),
      201,
    );
    expect(upload).to.include({ action: 'collection.upload', target_id: 'faq' });
    expect(JSON.stringify(upload.summary)).to.include('hours.csv');
    const index = await oneRow(() => t.call('POST', '/v2/collections/faq/index'), 202);
    expect(index).to.include({ action: 'collection.index', target_id: 'faq' });
    expect(index.summary.after?.files).to.deep.equal(['hours.csv']);
  });

  it('when dead letters are replayed, then dead_letter.replay names the topic', async () => {
    const row = await oneRow(
      () => t.call('POST', '/v2/ops/dead-letters/flow/replay', { body: { ids: ['p0-1-0'] } }),
      200,
    );
    expect(row).to.include({
      action: 'dead_letter.replay',
      target_type: 'topic',
      target_id: 'flow',
    });
    expect(row.summary.after).to.deep.include({ all: false, replayed: 0, refused: 1 });
  });

  it('when an account signs in to the console, changes a bot and signs out, then console.sign_in, bot.update and console.sign_out by that account', async () => {
    const email = 'builder-audit@example.test';
    const password = 'a-long-enough-password';
    const made = await t.call('POST', '/v2/accounts', {
      body: { email, name: 'Bea', role: 'builder', password },
    });
    expect(made.status, made.text).to.equal(201);
    const actor = `account:${email}`;
    const signIn = await oneRow(async () => {
      const response = await fetch(`${t.url}/v2/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ email, password }),
      });
      sessionCookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      return response;
    }, 204);
    expect(signIn).to.include({
      action: 'console.sign_in',
      actor,
      target_type: 'session',
    });
    const update = await oneRow(
      () =>
        fetch(`${t.url}/v2/bots/${appId}`, {
          method: 'PATCH',
          headers: { cookie: sessionCookie, origin, 'content-type': 'application/json' },
          body: JSON.stringify({ language: 'de' }),
        }),
      200,
    );
    expect(update).to.include({ action: 'bot.update', actor, account_id: made.json.id });
    expect(update.summary).to.deep.equal({ before: { language: 'en' }, after: { language: 'de' } });
    const signOut = await oneRow(
      () =>
        fetch(`${t.url}/v2/session`, {
          method: 'DELETE',
          headers: { cookie: sessionCookie, origin },
        }),
      204,
    );
    expect(signOut).to.include({ action: 'console.sign_out', actor });
    // Signing out again ends nothing: nothing is written.
    const before = await count();
    const again = await fetch(`${t.url}/v2/session`, { method: 'DELETE' });
    expect(again.status).to.equal(204);
    expect(await count()).to.equal(before);
  });

  it('when changes fail (bad body, unknown bot, no draft, wrong key), then nothing is written', async () => {
    const before = await count();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const failures = [
      await t.call('PATCH', `/v2/bots/${appId}`, { body: { name: 42 } }),
      await t.call('PATCH', `/v2/bots/${unknown}`, { body: { name: 'x' } }),
      await t.call('DELETE', `/v2/bots/${unknown}`),
      await t.call('POST', `/v2/bots/${appId}/flow/publish`),
      await t.call('POST', `/v2/bots/${appId}/flow/versions/99/publish`),
      await t.call('PATCH', `/v2/bots/${appId}`, {
        body: { name: 'x' },
        headers: { authorization: 'Bearer wrong' },
      }),
      await t.call('POST', '/v2/collections/empty-one/index'),
      await t.call('POST', '/v2/session', { body: { key: 'wrong' }, auth: false }),
    ];
    expect(failures.map((f) => f.status)).to.deep.equal([400, 404, 404, 409, 404, 401, 404, 401]);
    expect(await count()).to.equal(before);
  });

  it('when the bot is deleted, then bot.delete keeps its name as before', async () => {
    const row = await oneRow(() => t.call('DELETE', `/v2/bots/${appId}`), 204);
    expect(row).to.include({ action: 'bot.delete', target_id: appId, app_id: appId });
    expect(row.summary.before).to.include({ name: 'renamed' });
  });

  it('when the whole table is searched for every secret used above, then none is found', async () => {
    const { rows: all } = await t.api.db.raw<{ rows: { line: string }[] }>(
      'select a::text as line from audit_log a',
    );
    expect(all.length).to.be.above(15);
    const text = all.map((r) => r.line).join('\n');
    const secrets = [
      TELEGRAM_TOKEN,
      TELEGRAM_TOKEN.split(':')[1]!,
      WHATSAPP.access_token,
      WHATSAPP.app_secret,
      WHATSAPP.verify_token,
      t.adminKey,
      t.env.CREDENTIALS_KEY!,
      webhookSecret,
      sessionCookie.slice('bw_session='.length),
    ];
    for (const secret of secrets) {
      expect(secret.length, 'a secret to look for').to.be.above(10);
      expect(text, 'a secret in the audit log').to.not.include(secret);
    }
  });

  it('when the audit row cannot be written, then the change stands, its answer is a success, an error is logged and the metric counts it', async () => {
    const created = await t.call('POST', '/v2/bots', {
      body: { name: 'lost', channel: { type: 'web', details: { allowed_origins: [origin] } } },
    });
    const lostId: string = created.json.app_id;
    await t.api.db.raw('alter table audit_log rename to audit_log_away');
    try {
      const patched = await t.call('PATCH', `/v2/bots/${lostId}`, { body: { name: 'still' } });
      expect(patched.status).to.equal(200);
    } finally {
      await t.api.db.raw('alter table audit_log_away rename to audit_log');
    }
    expect((await t.call('GET', `/v2/bots/${lostId}`)).json.name).to.equal('still');
    expect(t.logs.some((l) => l.includes('audit row not written'))).to.equal(true);
    const metrics = await t.call('GET', '/metrics', { auth: false });
    expect(metrics.text).to.match(/^botwire_audit_write_failures_total 1$/m);
  });
});
