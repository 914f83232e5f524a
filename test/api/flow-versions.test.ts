/**
 * Flow drafts, versions, publishing, rollback, impact and the validation route, against real
 * Redis and Postgres; the last tests run turns through edge, channel, language and flow with a
 * stand-in Telegram API.
 */
import { expect } from 'chai';
import nock from 'nock';
import { startChannel } from '../../src/channel/worker.ts';
import { startFlow } from '../../src/flow/worker.ts';
import { startLanguage } from '../../src/language/worker.ts';
import { createLogger } from '../../src/shared/logger.ts';
import type { Service } from '../../src/shared/process.ts';
import {
  createTelegramBot,
  postTelegramUpdate,
  startTestApi,
  TELEGRAM_TOKEN,
  telegramText,
  type TestApi,
} from '../support/api.ts';
import { waitFor } from '../support/services.ts';

/** Asks a name, then a city, then thanks. */
const FLOW_V1 = {
  version: 1,
  start: 'welcome',
  states: {
    welcome: {
      actions: [{ send: { text: 'Hi, your name?' } }],
      wait: { store: 'name' },
      next: 'ask_city',
    },
    ask_city: { actions: [{ send: { text: 'City?' } }], wait: { store: 'city' }, next: 'done' },
    done: { actions: [{ send: { text: 'Thanks {{name}}' } }], end: true },
  },
};

/** `ask_city` and `done` removed, `welcome` changed, `bye` added. */
const FLOW_V2 = {
  version: 1,
  start: 'welcome',
  states: {
    welcome: {
      actions: [{ send: { text: 'Version two, {{name}}' } }],
      wait: { store: 'x' },
      next: 'bye',
    },
    bye: { actions: [{ send: { text: 'Bye' } }], end: true },
  },
};

/** A dead end: `next` names no state. */
const INVALID_FLOW = { version: 1, start: 'a', states: { a: { next: 'nowhere' } } };

describe('flow versions', function () {
  this.timeout(30_000);
  let t: TestApi;
  const services: Service[] = [];
  const logger = (component: string) => createLogger({ component, level: 'silent' });

  before(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    t = await startTestApi();
    for (const start of [startChannel, startLanguage, startFlow])
      services.push(await start(t.config, logger(start.name)));
  });

  after(async () => {
    for (const service of services) await service.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await t?.stop();
  });

  afterEach(() => nock.cleanAll());

  const newBot = async (flow: unknown = FLOW_V1) => (await createTelegramBot(t, { flow })).appId;

  it('when a flow route is called without the admin token, then 401 BW_ERR_UNAUTHORIZED', async () => {
    const bot = '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000/flow';
    const routes: [string, string][] = [
      ['POST', '/v2/flows/validate'],
      ['GET', bot],
      ['PUT', `${bot}/draft`],
      ['DELETE', `${bot}/draft`],
      ['POST', `${bot}/publish`],
      ['GET', `${bot}/versions`],
      ['GET', `${bot}/versions/1`],
      ['POST', `${bot}/versions/1/publish`],
      ['GET', `${bot}/impact?version=draft`],
    ];
    for (const [method, path] of routes) {
      const answer = await t.call(method, path, { auth: false });
      expect(answer.status, `${method} ${path}`).to.equal(401);
      expect(answer.json.error.code).to.equal('BW_ERR_UNAUTHORIZED');
    }
  });

  it('when flows are validated, then the answer is 200 with problems and warnings pointing into the flow, and 400 only for a body that is not JSON', async () => {
    const valid = await t.call('POST', '/v2/flows/validate', { body: FLOW_V1 });
    expect(valid.status).to.equal(200);
    expect(valid.json).to.deep.equal({ ok: true, problems: [], warnings: [] });

    const invalid = await t.call('POST', '/v2/flows/validate', { body: INVALID_FLOW });
    expect(invalid.status).to.equal(200);
    expect(invalid.json.ok).to.equal(false);
    expect(invalid.json.problems).to.deep.include({
      path: '/states/a/next',
      message: 'names no state ("nowhere")',
    });

    const unreachable = { ...FLOW_V1, states: { ...FLOW_V1.states, lost: { end: true } } };
    const warned = await t.call('POST', '/v2/flows/validate', { body: unreachable });
    expect(warned.json.ok).to.equal(true);
    expect(warned.json.warnings.map((w: { path: string }) => w.path)).to.include('/states/lost');

    const notAFlow = await t.call('POST', '/v2/flows/validate', { body: [1, 2] });
    expect(notAFlow.status).to.equal(200);
    expect(notAFlow.json.ok).to.equal(false);

    const notJson = await t.call('POST', '/v2/flows/validate', { raw: '{"start": ' });
    expect(notJson.status).to.equal(400);
    expect(notJson.json.error.code).to.equal('BW_ERR_MALFORMED_JSON');
  });

  it('when a draft is saved invalid, then it is kept with its problems, publishing it is 422 with them, and without a draft publishing is 409', async () => {
    const appId = await newBot();
    const before = await t.call('GET', `/v2/bots/${appId}/flow`);
    expect(before.json.published).to.include({ version: 1, author: 'admin-key', note: null });
    expect(before.json.published.flow).to.deep.equal(FLOW_V1);
    expect(before.json.draft).to.equal(null);

    const saved = await t.call('PUT', `/v2/bots/${appId}/flow/draft`, {
      body: { flow: INVALID_FLOW },
    });
    expect(saved.status).to.equal(200);
    expect(saved.json.flow).to.deep.equal(INVALID_FLOW);
    expect(saved.json.author).to.equal('admin-key');
    expect(saved.json.problems.map((p: { path: string }) => p.path)).to.include('/states/a/next');

    const read = await t.call('GET', `/v2/bots/${appId}/flow`);
    expect(read.json.draft.flow).to.deep.equal(INVALID_FLOW);
    expect(read.json.draft.problems).to.deep.equal(saved.json.problems);

    const refused = await t.call('POST', `/v2/bots/${appId}/flow/publish`, { body: {} });
    expect(refused.status).to.equal(422);
    expect(refused.json.error.code).to.equal('BW_ERR_FLOW_INVALID');
    expect(refused.json.error.details.problems.map((p: { path: string }) => p.path)).to.include(
      '/states/a/next',
    );
    expect((await t.call('GET', `/v2/bots/${appId}/flow`)).json.published.version).to.equal(1);

    const valid = await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: FLOW_V2 } });
    expect(valid.json.problems).to.deep.equal([]);
    expect((await t.call('DELETE', `/v2/bots/${appId}/flow/draft`)).status).to.equal(204);
    expect((await t.call('GET', `/v2/bots/${appId}/flow`)).json.draft).to.equal(null);
    const none = await t.call('POST', `/v2/bots/${appId}/flow/publish`);
    expect(none.status).to.equal(409);
    expect(none.json.error.code).to.equal('BW_ERR_NO_DRAFT');
    const bad = await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: [] } });
    expect(bad.status).to.equal(400);
    const unknown = await t.call('GET', '/v2/bots/6f1c1f8e-0000-4000-8000-000000000000/flow');
    expect(unknown.json.error.code).to.equal('BW_ERR_UNKNOWN_BOT');
  });

  it('when drafts are published and the flow is patched, then versions are numbered in order and listed newest first with their changes', async () => {
    const appId = await newBot();
    await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: FLOW_V2 } });
    const published = await t.call('POST', `/v2/bots/${appId}/flow/publish`, {
      body: { note: 'shorter' },
    });
    expect(published.status).to.equal(201);
    expect(published.json).to.include({ version: 2, note: 'shorter', current: true });
    expect((await t.call('GET', `/v2/bots/${appId}/flow`)).json.draft).to.equal(null);
    const bot = await t.call('GET', `/v2/bots/${appId}`);
    expect(bot.json.flow).to.deep.equal(FLOW_V2);
    expect(bot.json.flow_version).to.equal(2);

    const patched = await t.call('PATCH', `/v2/bots/${appId}`, { body: { flow: FLOW_V1 } });
    expect(patched.json.flow_version).to.equal(3);

    const list = await t.call('GET', `/v2/bots/${appId}/flow/versions`);
    expect(list.status).to.equal(200);
    expect(list.json.next_after).to.equal(null);
    const items = list.json.items;
    expect(items.map((v: { version: number }) => v.version)).to.deep.equal([3, 2, 1]);
    expect(items.map((v: { current: boolean }) => v.current)).to.deep.equal([true, false, false]);
    expect(items[1].changes).to.deep.equal({
      added: ['bye'],
      removed: ['ask_city', 'done'],
      changed: ['welcome'],
    });
    expect(items[0].changes).to.deep.equal({
      added: ['ask_city', 'done'],
      removed: ['bye'],
      changed: ['welcome'],
    });
    expect(items[2].changes).to.deep.equal({
      added: ['ask_city', 'done', 'welcome'],
      removed: [],
      changed: [],
    });
    expect(items[0]).to.not.have.property('flow');

    const first = await t.call('GET', `/v2/bots/${appId}/flow/versions?limit=2`);
    expect(first.json.items.map((v: { version: number }) => v.version)).to.deep.equal([3, 2]);
    expect(first.json.items[1].changes.removed).to.deep.equal(['ask_city', 'done']);
    const second = await t.call(
      'GET',
      `/v2/bots/${appId}/flow/versions?limit=2&after=${first.json.next_after}`,
    );
    expect(second.json.items.map((v: { version: number }) => v.version)).to.deep.equal([1]);
    expect(second.json.next_after).to.equal(null);

    const two = await t.call('GET', `/v2/bots/${appId}/flow/versions/2`);
    expect(two.json).to.include({ version: 2, current: false, author: 'admin-key' });
    expect(two.json.flow).to.deep.equal(FLOW_V2);
    const missing = await t.call('GET', `/v2/bots/${appId}/flow/versions/9`);
    expect(missing.status).to.equal(404);
  });

  it('when publishes and flow patches run at once, then every one gets its own version number, none lost', async () => {
    const appId = await newBot();
    await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: FLOW_V2 } });
    const flows = [1, 2, 3, 4, 5].map((i) => ({
      ...FLOW_V1,
      states: { ...FLOW_V1.states, done: { actions: [{ send: { text: `v${i}` } }], end: true } },
    }));
    const answers = await Promise.all([
      t.call('POST', `/v2/bots/${appId}/flow/publish`),
      ...flows.map((flow) => t.call('PATCH', `/v2/bots/${appId}`, { body: { flow } })),
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([201, 200, 200, 200, 200, 200]);
    const numbers = [answers[0].json.version, ...answers.slice(1).map((a) => a.json.flow_version)];
    expect([...numbers].sort()).to.deep.equal([2, 3, 4, 5, 6, 7]);
    const list = await t.call('GET', `/v2/bots/${appId}/flow/versions`);
    expect(list.json.items.map((v: { version: number }) => v.version)).to.deep.equal([
      7, 6, 5, 4, 3, 2, 1,
    ]);
    // The bot's flow is the one the last writer published.
    const newest = await t.call('GET', `/v2/bots/${appId}/flow/versions/7`);
    expect((await t.call('GET', `/v2/bots/${appId}`)).json.flow).to.deep.equal(newest.json.flow);
  });

  it('when a version that no longer validates is rolled back to, then 422 with its problems and the current version stays', async () => {
    const appId = await newBot();
    // Written as an older release might have accepted it: the validator has moved on since.
    await t.schema.db('flow_versions').insert({
      app_id: appId,
      version: 2,
      flow: INVALID_FLOW,
      author: 'admin-key',
    });
    const refused = await t.call('POST', `/v2/bots/${appId}/flow/versions/2/publish`);
    expect(refused.status).to.equal(422);
    expect(refused.json.error.code).to.equal('BW_ERR_FLOW_INVALID');
    expect(refused.json.error.details.problems.map((p: { path: string }) => p.path)).to.include(
      '/states/a/next',
    );
    expect((await t.call('GET', `/v2/bots/${appId}`)).json.flow_version).to.equal(1);
    const unknown = await t.call('POST', `/v2/bots/${appId}/flow/versions/7/publish`);
    expect(unknown.status).to.equal(404);
  });

  describe('turns across versions (edge, channel, language, flow)', () => {
    const TG = 'https://telegram.example.test';
    let appId: string;
    let secret: string;
    let sent: string[];
    let update = 0;
    /** Platform message ids are unique per conversation, across tests. */
    let messageId = 1000;

    const say = async (chat: number, text: string, replies: number) => {
      const before = sent.length;
      const posted = await postTelegramUpdate(
        t,
        appId,
        secret,
        telegramText(chat, (update += 1), text),
      );
      expect(posted.status).to.equal(200);
      await waitFor(() => sent.length >= before + replies, { what: `the reply to "${text}"` });
    };

    const stateOf = async (chat: number) => {
      const row = await t.schema
        .db('conversation_state as s')
        .join('conversations as c', 'c.id', 's.conversation_id')
        .where({ 'c.app_id': appId, 'c.chat_id': String(chat) })
        .first('s.state', 'c.id');
      return row as { state: { state: string; vars: Record<string, unknown> }; id: string };
    };

    before(async () => {
      ({ appId, secret } = await createTelegramBot(t, { flow: FLOW_V1 }));
    });

    beforeEach(() => {
      sent = [];
      nock(TG)
        .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
        .times(20)
        .reply((_uri, body) => {
          sent.push(String((body as { text?: unknown }).text));
          return [200, { ok: true, result: { message_id: (messageId += 1) } }];
        });
    });

    it('when a candidate flow drops the states conversations wait in, then impact counts them by state', async () => {
      await say(1, 'hello', 1);
      await say(1, 'Ana', 1); // chat 1 waits in ask_city
      await say(2, 'hello', 1); // chat 2 waits in welcome
      expect(sent).to.deep.equal(['Hi, your name?', 'City?', 'Hi, your name?']);
      await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: FLOW_V2 } });
      const draft = await t.call('GET', `/v2/bots/${appId}/flow/impact?version=draft`);
      expect(draft.status).to.equal(200);
      expect(draft.json).to.deep.equal({
        removed_states: [{ state: 'ask_city', conversations: 1 }],
        conversations: 1,
      });
      const same = await t.call('GET', `/v2/bots/${appId}/flow/impact?version=1`);
      expect(same.json).to.deep.equal({ removed_states: [], conversations: 0 });
      const bad = await t.call('GET', `/v2/bots/${appId}/flow/impact?version=latest`);
      expect(bad.status).to.equal(400);
    });

    it('when the new version lacks the state a conversation waits in, then its next turn starts over at start with a transcript note, and the other goes on', async () => {
      const published = await t.call('POST', `/v2/bots/${appId}/flow/publish`);
      expect(published.json.version).to.equal(2);
      await say(1, 'Paris', 1);
      expect(sent).to.deep.equal(['Version two, ']); // variables cleared: {{name}} is empty
      const restarted = await stateOf(1);
      expect(restarted.state.state).to.equal('welcome');
      expect(restarted.state.vars).to.deep.equal({});

      // Chat 2 waits in welcome, which version 2 still has: its answer is taken there.
      await say(2, 'Bo', 1);
      expect(sent[1]).to.equal('Bye');

      // The channel records a sent message once the platform answered: wait for the last row.
      const transcript = await waitFor(
        async () => {
          const page = await t.call('GET', `/v2/conversations/${restarted.id}/messages?limit=100`);
          return page.json.items.length >= 7 ? page : undefined;
        },
        { what: 'the transcript' },
      );
      const kinds = transcript.json.items.map(
        (m: { direction: string; message_type: string }) => `${m.direction}:${m.message_type}`,
      );
      expect(kinds).to.deep.equal([
        'in:text',
        'out:text',
        'in:text',
        'out:text',
        'in:text',
        'out:note',
        'out:text',
      ]);
      const note = transcript.json.items[5];
      expect(note.status).to.equal('note');
      expect(note.body).to.include({ removed_state: 'ask_city', flow_version: 2 });
      expect(note.body.text).to.include('ask_city');
    });

    it('when an earlier version is published again, then new turns use it', async () => {
      const rolled = await t.call('POST', `/v2/bots/${appId}/flow/versions/1/publish`);
      expect(rolled.status).to.equal(200);
      expect(rolled.json).to.include({ version: 1, current: true });
      const list = await t.call('GET', `/v2/bots/${appId}/flow/versions`);
      expect(list.json.items.map((v: { current: boolean }) => v.current)).to.deep.equal([
        false,
        true,
      ]);
      // Chat 1 waits in version 2's welcome, which version 1 has too: its answer goes on there.
      await say(1, 'Cy', 1);
      expect(sent).to.deep.equal(['City?']);
      // A new conversation starts with version 1.
      await say(3, 'hello', 1);
      expect(sent[1]).to.equal('Hi, your name?');
    });
  });
});
