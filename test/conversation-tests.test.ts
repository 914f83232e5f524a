/**
 * Conversation tests end to end in one process: the edge stores and runs them, flow runs them on
 * its engine through the test queue, real Redis and Postgres. A test saved from a test chat passes
 * on the version it was saved from and fails, naming the expectation, on a draft that changes a
 * reply; publish is refused until it passes or an owner overrides (audited).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  conversationSuite,
  startConversationComponents,
  TELEGRAM_TOKEN,
  type TestApi,
} from './support/api.ts';
import { makeAccount, withToken } from './support/accounts.ts';
import { openSse, type SseStream } from './support/sse.ts';
import { run as runProgram } from './support/run.ts';

function shopFlow(hours: string) {
  return {
    version: 1,
    start: 'welcome',
    states: {
      welcome: {
        actions: [
          {
            send: {
              text: 'Hi! What do you need?',
              buttons: [
                { id: 'hours', title: 'Opening hours' },
                { id: 'order', title: 'My order' },
              ],
            },
          },
        ],
        wait: { store: 'choice', expect: 'choice' },
        transitions: [
          { when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'hours' },
          { to: 'ask_order' },
        ],
      },
      hours: { actions: [{ send: { text: hours } }], end: true },
      ask_order: {
        actions: [{ send: { text: 'Your order number?' } }],
        wait: { store: 'number', expect: 'text' },
        next: 'lookup',
      },
      lookup: {
        actions: [
          {
            http: {
              method: 'GET',
              url: 'https://orders.example.test/orders/{{number}}',
              store: 'order',
            },
          },
        ],
        transitions: [{ when: { '!': { var: 'order.error' } }, to: 'status' }, { to: 'unknown' }],
      },
      status: {
        actions: [{ send: { text: 'Order {{number}}: {{order.body.status}}.' } }],
        end: true,
      },
      unknown: { actions: [{ send: { text: 'I could not find that order.' } }], end: true },
    },
  };
}

describe('conversation tests (edge and flow)', function () {
  this.timeout(60_000);
  let t: TestApi;
  let appId: string;
  const streams: SseStream[] = [];

  conversationSuite({}, async (edge) => {
    t = edge;
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'test shop',
        flow: shopFlow('We are open 9 to 5.'),
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    expect(created.status, created.text).to.equal(201);
    appId = created.json.app_id;
    return startConversationComponents(t);
  });

  after(() => streams.forEach((s) => s.close()));

  const put = (name: string, test: unknown) =>
    t.call('PUT', `/v2/bots/${appId}/tests/${encodeURIComponent(name)}`, { body: test });
  const run = (body: unknown = {}, query = '') =>
    t.call('POST', `/v2/bots/${appId}/tests/run${query}`, { body });

  it('when a test chat is saved as a test, then it passes on its version, fails naming the expectation on a draft that changes the reply, and guards the publish', async () => {
    const chat = await t.call('POST', `/v2/bots/${appId}/test-chats`, {
      body: { version: 'current' },
    });
    expect(chat.status, chat.text).to.equal(201);
    const chatId = chat.json.chat_id as string;
    const events = await openSse(t.url, `/v2/bots/${appId}/test-chats/${chatId}/events`, {
      authorization: `Bearer ${t.adminKey}`,
    });
    streams.push(events);
    const send = (body: Record<string, unknown>) =>
      t.call('POST', `/v2/bots/${appId}/test-chats/${chatId}/messages`, {
        body: { client_message_id: randomUUID(), ...body },
      });
    await send({ text: 'hello' });
    await events.waitForEvents(2);
    await send({ button_id: 'hours' });
    await events.waitForEvents(4);

    const saved = await t.call('POST', `/v2/bots/${appId}/tests/from-chat`, {
      body: { chat_id: chatId, name: 'opening hours' },
    });
    expect(saved.status, saved.text).to.equal(201);
    expect(saved.json.test.steps).to.deep.equal([
      {
        say: 'hello',
        expect: [
          { text_equals: 'Hi! What do you need?', reply: 0 },
          { buttons: ['Opening hours', 'My order'], reply: 0 },
        ],
      },
      {
        press: 'hours',
        expect: [{ text_equals: 'We are open 9 to 5.', reply: 0 }, { ended: true }],
      },
    ]);

    const onVersion = await run({ version: 'current' });
    expect(onVersion.status, onVersion.text).to.equal(200);
    expect(onVersion.json).to.deep.include({ flow: { version: 1 }, passed: 1, failed: 0 });

    await t.call('PUT', `/v2/bots/${appId}/flow/draft`, {
      body: { flow: shopFlow('We are open 8 to 4.') },
    });
    const onDraft = await run();
    expect(onDraft.json).to.deep.include({ passed: 0, failed: 1 });
    expect(onDraft.json.tests[0].failures).to.deep.equal([
      {
        step: 1,
        expectation: 0,
        where: 'steps[1].expect[0] text_equals "We are open 9 to 5." (reply 0)',
        message: 'expected reply 0 to be "We are open 9 to 5."; the bot said "We are open 8 to 4."',
      },
    ]);

    const junit = await run({}, '?format=junit');
    expect(junit.status).to.equal(200);
    expect(junit.text).to.include('<testsuite name="test shop (draft 1)" tests="1" failures="1"');
    expect(junit.text).to.include('name="opening hours"');

    const refused = await t.call('POST', `/v2/bots/${appId}/flow/publish`, { body: {} });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.json.error.code).to.equal('BW_ERR_TESTS_FAILED');
    expect(refused.json.error.message).to.include('"opening hours"');
    expect(refused.json.error.details.run.failed).to.equal(1);
    expect(refused.json.error.details.may_override).to.equal(true);
    expect((await t.call('GET', `/v2/bots/${appId}`)).json.flow_version).to.equal(1);

    const builder = await makeAccount(t, 'builder');
    const notOwner = await withToken(t, builder.token, 'POST', `/v2/bots/${appId}/flow/publish`, {
      override_tests: true,
    });
    expect(notOwner.status, notOwner.text).to.equal(403);
    const builderRefused = await withToken(
      t,
      builder.token,
      'POST',
      `/v2/bots/${appId}/flow/publish`,
      {},
    );
    expect(builderRefused.status).to.equal(409);
    expect(builderRefused.json.error.details.may_override).to.equal(false);

    const overridden = await t.call('POST', `/v2/bots/${appId}/flow/publish`, {
      body: { override_tests: true, note: 'hours change agreed' },
    });
    expect(overridden.status, overridden.text).to.equal(201);
    expect(overridden.json.version).to.equal(2);
    const audit = await t.call('GET', `/v2/audit?action=flow.publish&app_id=${appId}`);
    const row = audit.json.items[0];
    expect(row.summary.after).to.deep.include({
      version: 2,
      tests: { passed: 0, failed: 1 },
      tests_overridden: 'opening hours',
    });

    // The test, mended, passes; the next publish goes through with it.
    const mended = { ...saved.json.test };
    mended.steps[1].expect[0].text_equals = 'We are open 8 to 4.';
    expect((await put('opening hours', mended)).status).to.equal(200);
    await t.call('PUT', `/v2/bots/${appId}/flow/draft`, {
      body: { flow: shopFlow('We are open 8 to 4.') },
    });
    const published = await t.call('POST', `/v2/bots/${appId}/flow/publish`, { body: {} });
    expect(published.status, published.text).to.equal(201);
    expect(published.json.tests).to.deep.include({ passed: 1, failed: 0 });
  });

  it('when a test declares stand-ins for the HTTP step, then the flow takes their answers; an HTTP call with none fails the test naming it', async () => {
    const test = {
      stand_ins: {
        http: [
          {
            method: 'GET',
            url: 'https://orders.example.test/orders/42',
            body: { status: 'shipped' },
          },
        ],
      },
      steps: [
        { say: 'hi' },
        {
          say: 'My order',
          expect: [{ text_equals: 'Your order number?' }, { state: 'ask_order' }],
        },
        {
          say: '42',
          expect: [
            { text_contains: 'shipped' },
            { text_matches: '^Order \\d+' },
            { variable: 'number', equals: '42' },
            { ended: true },
          ],
        },
      ],
    };
    expect((await put('order found', test)).status).to.equal(201);
    const missing = structuredClone(test);
    missing.steps[2]!.say = '7';
    expect((await put('order unknown', missing)).status).to.equal(201);
    const result = await run({ version: 'current', names: ['order found', 'order unknown'] });
    expect(result.status, result.text).to.equal(200);
    const [found, unknown] = result.json.tests;
    expect(found, JSON.stringify(found.failures)).to.deep.include({
      name: 'order found',
      passed: true,
    });
    expect(found.steps[2].replies[0].text).to.equal('Order 42: shipped.');
    expect(unknown.passed).to.equal(false);
    expect(unknown.failures).to.deep.equal([
      {
        step: 2,
        where: 'steps[2]',
        message: 'no stand-in answers GET https://orders.example.test/orders/7',
      },
    ]);
  });

  it('when the draft is invalid, then publish refuses it as invalid (422 with its problems), before any test runs', async () => {
    const broken = shopFlow('Open.');
    (broken.states.welcome.transitions[1] as { to: string }).to = 'nowhere';
    await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: broken } });
    try {
      const refused = await t.call('POST', `/v2/bots/${appId}/flow/publish`, { body: {} });
      expect(refused.status, refused.text).to.equal(422);
      expect(refused.json.error.code).to.equal('BW_ERR_FLOW_INVALID');
    } finally {
      await t.call('DELETE', `/v2/bots/${appId}/flow/draft`);
    }
  });

  it('when a test is malformed, then it is refused with BW_ERR_SCHEMA at its place and nothing is stored', async () => {
    const badPattern = await put('bad', {
      steps: [{ say: 'hi', expect: [{ text_matches: '(?<=a)b' }] }],
    });
    expect(badPattern.status).to.equal(400);
    expect(badPattern.json.error.code).to.equal('BW_ERR_SCHEMA');
    expect(badPattern.json.error.details.problems[0].path).to.equal(
      '/steps/0/expect/0/text_matches',
    );
    const both = await put('bad', { steps: [{ say: 'hi', press: 'x' }] });
    expect(both.status).to.equal(400);
    const renamed = await put('bad', { name: 'other', steps: [{ say: 'hi' }] });
    expect(renamed.status).to.equal(400);
    const names = (await t.call('GET', `/v2/bots/${appId}/tests`)).json.items.map(
      (i: { name: string }) => i.name,
    );
    expect(names).to.not.include('bad');
    const unknownName = await run({ names: ['nope'] });
    expect(unknownName.status).to.equal(404);
    expect((await t.call('DELETE', `/v2/bots/${appId}/tests/nope`)).status).to.equal(404);
    expect((await t.call('DELETE', `/v2/bots/${appId}/tests/order%20unknown`)).status).to.equal(
      204,
    );
  });
  it('when test-bot.sh runs a bot whose test fails, then it prints the failure, writes JUnit XML and exits 1; on the version it passes on, exit 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'botwire-test-bot-'));
    const script = (args: string[], url = t.url) =>
      runProgram('./scripts/test-bot.sh', args, {
        env: { BOTWIRE_API_URL: url, ADMIN_API_KEY: t.adminKey, ENV_FILE: '/nonexistent/.env' },
      });
    try {
      await t.call('PUT', `/v2/bots/${appId}/flow/draft`, {
        body: { flow: shopFlow('Closed for the holidays.') },
      });
      const failed = await script([appId, '--names-are-not-an-option']);
      expect(failed.code).to.equal(2);
      const failing = await script([appId, '--junit', join(dir, 'junit.xml')]);
      expect(failing.code, failing.stderr).to.equal(1);
      expect(failing.stdout).to.match(/^FAIL {2}opening hours \(\d+ ms\)$/m);
      expect(failing.stdout).to.include('the bot said "Closed for the holidays."');
      expect(await readFile(join(dir, 'junit.xml'), 'utf8')).to.match(
        /<failure message="steps\[1\]/,
      );
      const passing = await script([appId, '--version', 'current']);
      expect(passing.code, passing.stdout + passing.stderr).to.equal(0);
      expect(passing.stdout).to.match(/^pass {2}opening hours/m);
      const down = await script([appId], 'http://127.0.0.1:9');
      expect(down.code).to.equal(3);
    } finally {
      await t.call('DELETE', `/v2/bots/${appId}/flow/draft`);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('conversation tests with no flow process', function () {
  this.timeout(60_000);
  let t: TestApi;
  let appId: string;

  conversationSuite({ TESTS_RUN_TIMEOUT_MS: '1500' }, async (edge) => {
    t = edge;
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'lonely',
        flow: shopFlow('Open.'),
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    appId = created.json.app_id;
    await t.call('PUT', `/v2/bots/${appId}/tests/hours`, {
      body: { steps: [{ say: 'hi' }, { press: 'hours', expect: [{ text_equals: 'Open.' }] }] },
    });
    return [];
  });

  it('when no flow process runs the tests, then a run and a publish are refused as unavailable, and an owner may publish anyway', async () => {
    const ran = await t.call('POST', `/v2/bots/${appId}/tests/run`, { body: {} });
    expect(ran.status, ran.text).to.equal(503);
    expect(ran.json.error.code).to.equal('BW_ERR_TESTS_UNAVAILABLE');
    await t.call('PUT', `/v2/bots/${appId}/flow/draft`, { body: { flow: shopFlow('Open late.') } });
    const refused = await t.call('POST', `/v2/bots/${appId}/flow/publish`, { body: {} });
    expect(refused.json.error?.code).to.equal('BW_ERR_TESTS_UNAVAILABLE');
    const overridden = await t.call('POST', `/v2/bots/${appId}/flow/publish`, {
      body: { override_tests: true },
    });
    expect(overridden.status, overridden.text).to.equal(201);
  });
});
