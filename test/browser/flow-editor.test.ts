/**
 * The flow editor in a real browser against the real service: an operator builds a flow by
 * clicking, tries the draft in the test chat, publishes it, tries the live version and watches
 * the test conversations arrive on the Conversations page; a broken transition is shown where it is and blocks publishing; publishing
 * and rolling back versions change what the bot says, and a conversation stranded in a removed
 * state starts over as docs/flows.md "Versions" says.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';

type Box = { x: number; y: number; width: number; height: number };
import { DEFAULT_FLOW } from '../../src/shared/flows/default-flow.ts';
import { BLANK_FLOW } from '../../console/src/pages/bots/blank-flow.ts';
import { byCanvas, SIX_STATE_FLOW, SIX_STATE_TEXTS } from './six-state-build.ts';
import { TELEGRAM_TOKEN } from '../support/api.ts';
import { waitFor } from '../support/services.ts';
import {
  apiCall,
  checkA11y,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  screenshot,
  signIn,
  type ConsoleService,
} from './support.ts';
import {
  addState,
  botLine,
  chatPanel,
  clickNode,
  deleteState,
  details,
  expectValid,
  publish,
  say,
  sendWithButtons,
  TURN_MS,
} from './flow-editor-helpers.ts';

interface BrowserGlobals {
  navigator: { clipboard: { writeText(text: string): Promise<void> } };
}

describe('flow editor in a browser', function () {
  this.timeout(300_000);
  let service: ConsoleService;
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
  /** A bot on the default flow (version 1) with a web channel; its app id. */
  const webBot = async (name: string): Promise<string> => {
    const created = await api('POST', '/v2/bots', {
      name,
      channel: { type: 'web', details: { allowed_origins: [] } },
    });
    expect(created.status).to.equal(201);
    return created.body.app_id as string;
  };
  const openEditor = async (page: Page, appId: string): Promise<void> => {
    await page.goto(`/console/bots/${appId}/flow`);
    await page.getByRole('heading', { name: /^Flow of /, level: 1 }).waitFor();
    await expectValid(page);
  };

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when an operator builds a three-state flow with buttons by clicking, then the test chat runs the saved draft while the live version stays, runs the new version once published, and the test conversations show live on the Conversations page with both sides', async () => {
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.getByLabel('Name', { exact: true }).fill('Opening hours bot');
    await page.getByLabel('Channel type').selectOption({ label: 'Web chat' });
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('heading', { name: 'Opening hours bot', level: 1 }).waitFor();
    const appId = new URL(page.url()).pathname.split('/').pop()!;

    // The Conversations page showing test chats, open before any exists, in a tab of its own.
    const watcher = await service.newPage();
    await signIn(watcher, service.adminKey);
    await watcher.goto(`/console/bots/${appId}/conversations?channel=console`);
    await watcher.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    await watcher.getByText('No conversations match these filters.').waitFor();
    await watcher.getByRole('status').filter({ hasText: 'Live updates: on' }).waitFor();

    await page.getByRole('link', { name: 'Flow editor' }).click();
    await page.getByRole('heading', { name: /^Flow of /, level: 1 }).waitFor();
    await expectValid(page);
    await checkA11y(page, 'flow editor (default flow)');

    // Three states: a question with two buttons, and one state per answer.
    await addState(page, 'ask');
    await sendWithButtons(page, 'What would you like to know?', [
      ['hours', 'Opening hours'],
      ['address', 'Address'],
    ]);
    await details(page).getByLabel("This state waits for the user's answer").check();
    await details(page).getByLabel('Store the answer in variable').fill('topic');
    await details(page).getByLabel('Expect').selectOption({ label: 'one of the options sent' });

    await addState(page, 'hours');
    await sendWithButtons(page, 'We are open 9 to 5. Anything else?', []);
    await details(page).getByLabel("This state waits for the user's answer").check();
    await details(page).getByLabel('Way out').selectOption({ label: 'go on to a state' });
    await details(page).getByLabel('Next state').selectOption('ask');

    await addState(page, 'address');
    await sendWithButtons(page, 'Find us at 1 Spoke Street.', []);

    // The transitions of `ask`, one per button.
    await clickNode(page, 'ask');
    const panel = details(page);
    await panel.getByLabel('Way out').selectOption({ label: 'branch (first matching transition)' });
    await panel.getByLabel('Transition 1 condition').selectOption({
      label: 'the answer is an option',
    });
    await panel.getByLabel('Transition 1 option').selectOption({ label: 'Opening hours (hours)' });
    await panel.getByLabel('Transition 1 goes to').selectOption('hours');
    await panel.getByRole('button', { name: 'Add transition' }).click();
    await panel.getByLabel('Transition 2 condition').selectOption({
      label: 'the answer is an option',
    });
    await panel.getByLabel('Transition 2 option').selectOption({ label: 'Address (address)' });
    await panel.getByLabel('Transition 2 goes to').selectOption('address');

    // The flow starts at `ask`; the default flow's states go.
    await page.getByRole('region', { name: /Flow graph/ }).click({ position: { x: 5, y: 5 } });
    await details(page).getByLabel('Start state').selectOption('ask');
    for (const name of ['welcome', 'menu', 'about', 'echo', 'echo_wait', 'echo_reply']) {
      await deleteState(page, name);
    }
    expect(
      await page
        .getByRole('navigation', { name: /States/ })
        .getByRole('heading')
        .innerText(),
    ).to.equal('States (3)');
    await expectValid(page);
    // The edges carry the buttons' titles.
    const graph = page.getByRole('region', { name: /Flow graph/ });
    await graph.getByText('“Opening hours”').waitFor();
    await graph.getByText('“Address”').waitFor();
    await checkA11y(page, 'flow editor (built flow)');
    await screenshot(page, 'flow-editor');

    // Tried as a draft: saved, not published; the live version stays the default flow.
    const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
    await bar.getByRole('button', { name: 'Save draft' }).click();
    await bar.getByText('Draft saved.').waitFor();
    await page.getByRole('button', { name: 'Test chat' }).click();
    const chat = chatPanel(page);
    await chat.getByText(/^Running the draft/).waitFor();
    await chat.getByText('Say hello to start the flow.').waitFor();
    // The whole composer fits in the panel at common screen widths.
    for (const width of [1280, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      const send = (await chat.getByRole('button', { name: 'Send' }).boundingBox())!;
      const panel = (await chat.boundingBox())!;
      expect(send.x + send.width, `Send at ${width} px`).to.be.at.most(panel.x + panel.width);
    }
    await page.setViewportSize({ width: 1280, height: 720 });
    await chat.getByRole('status').filter({ hasText: 'Live updates: on' }).waitFor();
    await say(chat, 'hello');
    await botLine(chat, 'What would you like to know?').waitFor({ timeout: TURN_MS });
    await chat.getByRole('button', { name: 'Opening hours' }).click();
    await botLine(chat, 'We are open 9 to 5. Anything else?').waitFor({ timeout: TURN_MS });
    await chat.getByText(/^State: hours/).waitFor({ timeout: TURN_MS });
    // The turn trace of the press: the transition that fired, with its condition.
    const turns = chat.getByRole('list', { name: 'Turn trace' });
    const press = turns.getByRole('listitem').filter({ hasText: /^pressed hours/ });
    await press
      .getByText('ask → hours: transition 1 (topic == "hours")')
      .waitFor({ timeout: TURN_MS });
    await press.getByText('set topic = "hours"').waitFor();
    await press.getByText('sent “We are open 9 to 5. Anything else?”').waitFor();
    await checkA11y(page, 'flow editor with the test chat');
    await screenshot(page, 'flow-editor-test-chat');
    await bar.getByText('Live: version 1').waitFor();
    const live = await apiCall(service, 'GET', `/v2/bots/${appId}`);
    expect(live.flow.start).to.equal('welcome');

    await publish(page, 'Hours and address');
    // Published: the editor shows the live version and nothing is left to publish; the test chat
    // now runs it, in a new conversation.
    await bar.getByText('Live: version 2').waitFor();
    expect(await bar.getByRole('button', { name: 'Publish' }).isDisabled()).to.equal(true);
    await chat.getByText('Running version 2.', { exact: false }).waitFor();
    await say(chat, 'hello');
    await botLine(chat, 'What would you like to know?').waitFor({ timeout: TURN_MS });

    // The Conversations page got the conversation without a reload.
    const row = watcher
      .getByRole('row')
      .filter({ hasText: 'console' })
      .filter({ hasText: 'We are open 9 to 5' });
    await row.waitFor({ timeout: TURN_MS });
    await row.getByRole('cell').filter({ hasText: 'hours' }).waitFor({ timeout: TURN_MS });
    await checkA11y(watcher, 'conversations');
    await screenshot(watcher, 'flow-conversations-live');
    await row.getByRole('link').click();
    const transcript = watcher.getByRole('log', { name: 'Transcript' });
    await transcript.getByText('hello', { exact: true }).waitFor();
    await transcript.getByText('What would you like to know?').waitFor();
    await transcript
      .getByText(/Opening hours/)
      .first()
      .waitFor();
    await transcript.getByText('We are open 9 to 5. Anything else?').waitFor();
    await checkA11y(watcher, 'conversation');
    await screenshot(watcher, 'flow-conversation');
    expectNoCspViolations(page);
    expectNoCspViolations(watcher);
  });

  it('when a transition names a missing state, then its node, its state and its field show the problem and Publish is off; choosing an existing state clears it and Publish is on', async () => {
    const appId = await webBot('Typo bot');
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await openEditor(page, appId);

    // The operator edits the JSON and mistypes a state's name.
    const typo = structuredClone(DEFAULT_FLOW) as any;
    typo.states.menu.transitions[0].to = 'abuot';
    await page.getByRole('tab', { name: 'JSON' }).click();
    const json = page.getByRole('textbox', { name: 'Flow JSON' });
    await json.click();
    await page.keyboard.press('ControlOrMeta+a');
    // Pasted, as a person would (typed text would pass through the editor's auto-indent).
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.evaluate(
      // The browser's clipboard (this file is typed without the DOM library).
      (text) => (globalThis as unknown as BrowserGlobals).navigator.clipboard.writeText(text),
      JSON.stringify(typo, null, 2),
    );
    await page.keyboard.press('ControlOrMeta+v');
    await page.getByRole('status').filter({ hasText: 'Valid JSON.' }).waitFor();
    await checkA11y(page, 'JSON tab');
    await screenshot(page, 'flow-editor-json');
    await page.getByRole('tab', { name: 'Graph' }).click();

    const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
    await bar
      .getByRole('status')
      .filter({ hasText: '1 problem: fix before publishing.' })
      .waitFor();
    expect(await bar.getByRole('button', { name: 'Publish' }).isDisabled()).to.equal(true);
    // On the node, in the state list and in the list of findings.
    const node = page.getByRole('region', { name: /Flow graph/ }).getByLabel(/^State menu\b/);
    await node.filter({ hasText: '⚠ 1' }).waitFor();
    await page
      .getByRole('navigation', { name: /States/ })
      .getByRole('button', { name: 'menu 1 problem' })
      .waitFor();
    const finding = page
      .getByRole('complementary', { name: 'States and findings' })
      .getByRole('button', { name: /menu › transitions › 0 › to .*abuot/ });
    await finding.waitFor();
    await checkA11y(page, 'flow editor with a problem');
    await screenshot(page, 'flow-editor-problem');

    // A click on the finding opens the state with the field focused, marked and explained.
    await finding.click();
    const field = details(page).getByLabel('Transition 1 goes to');
    await waitFor(async () => await field.evaluate((el) => el === el.ownerDocument.activeElement), {
      what: 'the field of the finding focused',
    });
    expect(await field.getAttribute('aria-invalid')).to.equal('true');
    expect(await field.inputValue()).to.equal('abuot');
    // The field's description (aria-describedby) carries the problem.
    const noteId = await field.getAttribute('aria-describedby');
    const note = await page.locator(`[id="${noteId}"]`).innerText();
    expect(note).to.match(/abuot/);
    await details(page)
      .getByRole('list', { name: 'Findings in state menu' })
      .getByText(/abuot/)
      .waitFor();
    await checkA11y(page, 'the state with a problem');
    await screenshot(page, 'flow-editor-problem-field');

    // Saved as it is (nobody loses work), the server refuses to publish it too.
    await bar.getByRole('button', { name: 'Save draft' }).click();
    await bar.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor();
    const refused = await api('POST', `/v2/bots/${appId}/flow/publish`, {});
    expect([refused.status, refused.body.error.code]).to.deep.equal([422, 'BW_ERR_FLOW_INVALID']);

    await field.selectOption('about');
    await expectValid(page);
    expect(await field.getAttribute('aria-invalid')).to.equal('false');
    await node.filter({ hasNotText: '⚠' }).waitFor();
    await finding.waitFor({ state: 'detached' });
    expect(await bar.getByRole('button', { name: 'Publish' }).isEnabled()).to.equal(true);
    await publish(page, 'Typo fixed');
    const flow = await api('GET', `/v2/bots/${appId}/flow`);
    expect([flow.body.published.version, flow.body.draft]).to.deep.equal([2, null]);
    expect(flow.body.published.flow.states.menu.transitions[0].to).to.equal('about');
    expectNoCspViolations(page);
  });

  it('when version 2 is published and version 1 put back from the Versions panel, then the test chat answers by each in turn, and a visitor waiting in a removed state restarts at start with a note after a warning that counted them (and not the test chat)', async () => {
    const appId = await webBot('Versions bot');
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await openEditor(page, appId);
    const v1Greeting = 'Hello! This bot has no conversation flow of its own yet';

    // A web visitor (through the web channel's own routes) is left waiting in `menu`.
    const visitor = (await (
      await fetch(`${service.url}/v2/web/${appId}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { token: string };
    let sent = 0;
    const visit = async (message: Record<string, string>) => {
      sent += 1;
      const answer = await fetch(`${service.url}/v2/callback/web/${appId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${visitor.token}` },
        body: JSON.stringify({ client_message_id: `m${sent}`, ...message }),
      });
      expect(answer.status).to.equal(202);
    };
    const visitorIn = (state: string) =>
      waitFor(
        async () => {
          const listed = await api('GET', `/v2/bots/${appId}/conversations?channel_type=web`);
          const [first] = listed.body.items as { id: string; state: string | null }[];
          return first?.state === state ? first.id : undefined;
        },
        { timeoutMs: TURN_MS, what: `the visitor in ${state}` },
      );
    await visit({ text: 'hi' });
    const conversationId = await visitorIn('menu');

    // The test chat runs version 1, and waits in `menu` too.
    await page.getByRole('button', { name: 'Test chat' }).click();
    const chat = chatPanel(page);
    await chat.getByText(/^Running version 1\./).waitFor();
    await chat.getByRole('status').filter({ hasText: 'Live updates: on' }).waitFor();
    await say(chat, 'hi');
    await botLine(chat, v1Greeting).waitFor({ timeout: TURN_MS });
    await botLine(chat, 'What would you like to do?').waitFor({ timeout: TURN_MS });
    await chat.getByText(/^State: menu/).waitFor({ timeout: TURN_MS });

    // Version 2: another greeting, and `menu` renamed, so version 2 has no state `menu`.
    await clickNode(page, 'welcome');
    await details(page).getByLabel('Message text', { exact: true }).fill('Welcome to version 2.');
    await clickNode(page, 'menu');
    await details(page).getByLabel('Name', { exact: true }).fill('main_menu');
    await details(page).getByRole('button', { name: 'Rename' }).click();
    await details(page).getByRole('heading', { name: 'State main_menu' }).waitFor();
    await expectValid(page);
    const warned = await publish(page, 'New greeting', 'flow-editor-publish-impact');
    // The visitor only: a test chat keeps the flow it started with.
    expect(warned).to.include('1 conversation waits in states this version removes.');
    expect(warned).to.include('menu: 1');

    // The test chat starts over on version 2.
    await chat.getByText(/^Running version 2\./).waitFor();
    await say(chat, 'hi');
    await botLine(chat, 'Welcome to version 2.').waitFor({ timeout: TURN_MS });
    await chat.getByText(/^State: main_menu/).waitFor({ timeout: TURN_MS });

    // The visitor presses a button of version 1's menu: version 2 starts them over.
    await visit({ button_id: 'about' });
    await visitorIn('main_menu');
    const reader = await service.newPage();
    await signIn(reader, service.adminKey);
    await reader.goto(`/console/conversations/${conversationId}`);
    const transcript = reader.getByRole('log', { name: 'Transcript' });
    const note = transcript.getByRole('listitem').filter({ hasText: /^Flow note/ });
    await note
      .filter({ hasText: 'The conversation was waiting in state "menu"' })
      .filter({ hasText: 'restarted at "welcome" with its variables cleared' })
      .waitFor();
    await transcript.getByText('Welcome to version 2.').waitFor();
    await checkA11y(reader, 'transcript with a flow note');
    await screenshot(reader, 'conversation-flow-note');

    // Back to version 1 from the Versions panel, after a warning about `main_menu`.
    await page.getByRole('button', { name: 'Versions' }).click();
    await details(page).getByText('Version 2 live').waitFor();
    await details(page).getByRole('button', { name: 'View version 1' }).click();
    const banner = page.getByRole('region', { name: 'Version 1' });
    await banner.getByText(/Viewing version 1 \(read-only\)/).waitFor();
    await checkA11y(page, 'versions panel');
    await screenshot(page, 'flow-editor-versions');
    await banner.getByRole('button', { name: 'Publish this version' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish version 1 again?' });
    await dialog.getByText('1 conversation waits in states this version removes.').waitFor();
    await dialog.getByText('main_menu: 1').waitFor();
    await dialog.getByRole('button', { name: 'Publish version 1' }).click();
    await banner.getByRole('status').filter({ hasText: 'Version 1 is live again.' }).waitFor();

    // The test chat runs version 1 again; the visitor, waiting in `main_menu`, starts over.
    await chat.getByText(/^Running version 1\./).waitFor();
    await say(chat, 'hello again');
    await botLine(chat, v1Greeting).waitFor({ timeout: TURN_MS });
    await visit({ text: 'hello again' });
    await visitorIn('menu');
    await reader.reload();
    await note.filter({ hasText: 'waiting in state "main_menu"' }).waitFor();
    expectNoCspViolations(page);
    expectNoCspViolations(reader);
  });

  it('when a flow of six states is built from a blank one on the canvas, with the console opened at another address than PUBLIC_BASE_URL, then a Telegram-only bot’s draft answers in the test chat and the live version is unchanged until publish', async () => {
    // The service's PUBLIC_BASE_URL is http://127.0.0.1:<port>; the operator opens localhost.
    const elsewhere = service.url.replace('127.0.0.1', 'localhost');
    // The Telegram stand-in is the browser suite's: only what it gets from now on is this test's.
    const started = Date.now();
    const page = await service.newPage();
    // A laptop's screen: the whole six-state flow fits the canvas at a readable zoom.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${elsewhere}/console/`);
    await page.getByLabel('Admin key').fill(service.adminKey);
    await page.getByRole('button', { name: 'Sign in with the admin key' }).click();
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    // A Telegram-only bot on a blank flow, made in the console.
    await page.getByLabel('Name', { exact: true }).fill('Telegram-only bot');
    await page.getByLabel('Channel type').selectOption('telegram');
    await page.getByLabel('Bot token').fill(TELEGRAM_TOKEN);
    await page.getByLabel(/a blank flow/).check();
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('heading', { name: 'Telegram-only bot', level: 1 }).waitFor();
    const appId = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('link', { name: 'Flow editor' }).click();
    await page.getByRole('heading', { name: /^Flow of /, level: 1 }).waitFor();
    await expectValid(page);

    // Dragging and typing: under 25 gestures (bench/console counts them against the forms).
    const gestures = await byCanvas(page);
    expect(gestures).to.be.below(25);
    await expectValid(page);
    await screenshot(page, 'flow-built-on-canvas');
    const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
    await bar.getByRole('button', { name: 'Save draft' }).click();
    await bar.getByText('Draft saved.').waitFor();
    const draft = (await api('GET', `/v2/bots/${appId}/flow`)).body.draft.flow;
    // Each state made by a drag is drawn where it was dropped.
    expect(Object.keys(draft.layout).sort()).to.deep.equal([
      'state_1',
      'state_2',
      'state_3',
      'state_4',
      'state_5',
    ]);
    expect({ ...draft, layout: undefined }).to.deep.equal({ ...SIX_STATE_FLOW, layout: undefined });

    await page.getByRole('button', { name: 'Test chat' }).click();
    const chat = chatPanel(page);
    await chat.getByText(/^Running the draft/).waitFor();
    await say(chat, 'hi');
    await botLine(chat, SIX_STATE_TEXTS.start).waitFor({ timeout: TURN_MS });
    await chat.getByRole('button', { name: 'Talk to us' }).click();
    await botLine(chat, SIX_STATE_TEXTS.state_2).waitFor({ timeout: TURN_MS });
    await say(chat, 'ann@example.com');
    await botLine(chat, 'Thanks! We will write to ann@example.com').waitFor({ timeout: TURN_MS });
    await botLine(chat, SIX_STATE_TEXTS.state_5).waitFor({ timeout: TURN_MS });
    // Nothing reached Telegram, and the live version is the one the bot was made with.
    const sent = service.telegram.calls.filter(
      (c) => c.method === 'sendMessage' && c.at >= started,
    );
    expect(sent).to.deep.equal([]);
    const before = await api('GET', `/v2/bots/${appId}/flow`);
    expect(before.body.published.version).to.equal(1);
    expect(before.body.published.flow).to.deep.equal(BLANK_FLOW);

    await publish(page, 'Opening hours and contact');
    const after = await api('GET', `/v2/bots/${appId}/flow`);
    expect(after.body.published.version).to.equal(2);
    expect(after.body.published.flow.states).to.deep.equal(SIX_STATE_FLOW.states);
    expectNoCspViolations(page);
  });

  it('when several ways out of states lead to the same states, then no edge label covers another or a state', async () => {
    const fruit = (id: string) => ({ '==': [{ var: 'fruit' }, id] });
    const created = await api('POST', '/v2/bots', {
      name: 'Labels bot',
      channel: { type: 'web', details: { allowed_origins: [] } },
      flow: {
        version: 1,
        start: 'ask',
        states: {
          ask: {
            actions: [
              {
                send: {
                  text: 'Which fruit?',
                  buttons: [
                    { id: 'a', title: 'Apples' },
                    { id: 'b', title: 'Bananas' },
                    { id: 'c', title: 'Cherries' },
                  ],
                },
              },
            ],
            wait: { store: 'fruit', expect: 'choice', on_fail: 'done' },
            transitions: [
              { when: fruit('a'), to: 'done' },
              { when: fruit('b'), to: 'done' },
              { when: fruit('c'), to: 'done' },
              { to: 'sorry' },
            ],
          },
          sorry: {
            actions: [{ send: { text: 'Sorry?' } }],
            wait: { store: 'again' },
            transitions: [{ when: { '!!': [{ var: 'again' }] }, to: 'done' }, { to: 'ask' }],
          },
          done: { actions: [{ send: { text: 'Done.' } }], end: true },
        },
      },
    });
    expect(created.status).to.equal(201);
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await openEditor(page, created.body.app_id);
    const graph = page.getByRole('region', { name: /Flow graph/ });
    await graph.getByRole('button', { name: /fit view/i }).click();
    const labels = graph.locator('.edge-label');
    await waitFor(async () => (await labels.count()) === 7 || undefined, {
      timeoutMs: 10_000,
      what: 'seven edge labels',
    });
    expect(await labels.allTextContents()).to.have.members([
      '“Apples”',
      '“Bananas”',
      '“Cherries”',
      'else',
      'on fail',
      '!!again',
      'else',
    ]);
    const boxes = await Promise.all(
      (await labels.all()).map(async (l) => (await l.boundingBox())!),
    );
    const states = await Promise.all(
      (await graph.locator('.react-flow__node').all()).map(async (n) => (await n.boundingBox())!),
    );
    const overlap = (a: Box, b: Box) =>
      a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1))
        expect(overlap(a, b), 'two labels overlap').to.equal(false);
      for (const n of states)
        expect(overlap(a, n), `a label covers a state: ${JSON.stringify([a, n])}`).to.equal(false);
    }
    await screenshot(page, 'flow-edge-labels');
    expectNoCspViolations(page);
  });

  it('when edits of ten kinds are undone with Ctrl+Z, then the flow is exactly as before them; redone with Ctrl+Shift+Z, exactly as edited', async () => {
    const appId = await webBot('Undo bot');
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await openEditor(page, appId);
    const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
    const undoButton = page.getByRole('button', { name: 'Undo', exact: true });
    const redoButton = page.getByRole('button', { name: 'Redo', exact: true });
    expect(await undoButton.isDisabled()).to.equal(true);
    /** Saves what the editor holds and answers it as the server has it. */
    const saved = async (): Promise<unknown> => {
      const before = (await api('GET', `/v2/bots/${appId}/flow`)).body.draft?.revision ?? 0;
      await bar.getByRole('button', { name: 'Save draft' }).click();
      return waitFor(
        async () => {
          const draft = (await api('GET', `/v2/bots/${appId}/flow`)).body.draft;
          return draft && draft.revision > before ? draft.flow : undefined;
        },
        { timeoutMs: 15_000, what: 'the draft saved' },
      );
    };
    const graph = page.getByRole('region', { name: /Flow graph/ });

    await addState(page, 'extra'); // a state
    await sendWithButtons(page, 'Pick a size', [['s', 'Small']]); // an action, its text, buttons
    await details(page).getByLabel("This state waits for the user's answer").check(); // a wait
    await details(page).getByLabel('Store the answer in variable').fill('size'); // its variable
    await clickNode(page, 'menu');
    await details(page).getByLabel('Message text', { exact: true }).fill('Pick one:'); // another state's text
    // A variable put in by the picker, where the caret is (the end of the text).
    await details(page)
      .getByRole('button', { name: 'Insert a variable into Message text' })
      .click();
    await details(page).getByRole('menuitem', { name: '{{choice}}' }).click();
    expect(await details(page).getByLabel('Message text', { exact: true }).inputValue()).to.equal(
      'Pick one:{{choice}}',
    );
    await deleteState(page, 'about'); // a state removed
    await graph.click({ position: { x: 5, y: 5 } });
    await details(page).getByLabel('Start state').selectOption('menu'); // the start
    const edited = await saved();
    expect(edited).to.not.deep.equal(DEFAULT_FLOW);

    // Undo with the keyboard, the focus on the page (not in a field), until nothing is left.
    await graph.click({ position: { x: 5, y: 5 } });
    let undone = 0;
    while ((await undoButton.isEnabled()) && undone < 100) {
      await page.keyboard.press('ControlOrMeta+z');
      undone += 1;
    }
    expect(undone).to.be.at.least(10);
    expect(await saved()).to.deep.equal(DEFAULT_FLOW);
    await page
      .getByRole('navigation', { name: /States/ })
      .getByRole('button', { name: 'about', exact: true })
      .waitFor();

    let redone = 0;
    while ((await redoButton.isEnabled()) && redone < 100) {
      await page.keyboard.press('ControlOrMeta+Shift+z');
      redone += 1;
    }
    expect(redone).to.equal(undone);
    expect(await saved()).to.deep.equal(edited);
    expectNoCspViolations(page);
  });

  it('when states are connected by dragging on the canvas, one is made by dragging to empty space, one deleted with the Delete key, one copied with Ctrl+C and Ctrl+V and given a condition by rules, and one moved by dragging, then the flow says so', async () => {
    const appId = await webBot('Canvas bot');
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await openEditor(page, appId);
    const graph = page.getByRole('region', { name: /Flow graph/ });
    const node = (name: string) => graph.getByLabel(`State ${name}`, { exact: true });
    const handleOf = (name: string) => node(name).locator('.react-flow__handle.source');
    const fit = async () => graph.getByRole('button', { name: /fit view/i }).click();

    // A new state is connected to nothing: adding it changes no other state.
    await addState(page, 'extra');
    await fit();
    await handleOf('extra').dragTo(node('menu'));
    await expectValid(page);
    // Dragged to empty space: a new state, which extra leads to after menu.
    await fit();
    const box = (await graph.boundingBox())!;
    await handleOf('extra').hover();
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 40, box.y + 60, { steps: 12 });
    await page.mouse.up();
    await details(page).getByRole('heading', { name: 'State state_1' }).waitFor();

    // The Delete key asks, then deletes the selected state.
    await graph.click({ position: { x: 5, y: 5 } });
    await clickNode(page, 'state_1');
    await node('state_1')
      .focus()
      .catch(() => undefined);
    await page.locator('body').press('Delete');
    await page
      .getByRole('dialog', { name: 'Delete state state_1?' })
      .getByRole('button', { name: 'Delete state_1' })
      .click();
    await node('state_1').waitFor({ state: 'detached' });

    // Ctrl+C then Ctrl+V: a copy of extra, selected.
    await clickNode(page, 'extra');
    await page.locator('body').press('ControlOrMeta+c');
    await page.locator('body').press('ControlOrMeta+v');
    await details(page).getByRole('heading', { name: 'State extra_copy' }).waitFor();

    // The copy's transition gets a condition from the builder: the input contains "bike".
    const panel = details(page);
    await panel.getByLabel('Transition 1 condition').selectOption('rules');
    await panel.getByLabel('Transition 1 rule 1 variable').fill('input');
    await panel.getByLabel('Transition 1 rule 1 test').selectOption({ label: 'contains' });
    await panel.getByLabel('Transition 1 rule 1 value').fill('bike');

    // Dragged by its body, a state stays where it is dropped (the flow's layout).
    await fit();
    // Measured against a state left in place: the view itself may pan to the selected state.
    const offset = async () => {
      const [a, b] = [await node('about').boundingBox(), await node('welcome').boundingBox()];
      return a!.x - b!.x;
    };
    // Hovered first: playwright waits until the node stands still (the fit has settled).
    await node('about').hover({ position: { x: 60, y: 10 } });
    const about = (await node('about').boundingBox())!;
    const before = await offset();
    await page.mouse.down();
    await page.mouse.move(about.x + 60 + 120, about.y + 70, { steps: 10 });
    await page.mouse.up();
    expect((await offset()) - before).to.be.closeTo(120, 15);

    // Found by a text it sends: the list narrows to it, Enter selects it.
    const search = page.getByLabel('Find a state or text');
    await search.fill('send me anything');
    const list = page.getByRole('navigation', { name: /States/ });
    await list.getByRole('heading', { name: /States \(1 of 8\)/ }).waitFor();
    await search.press('Enter');
    await details(page).getByRole('heading', { name: 'State echo' }).waitFor();
    await search.fill('');

    const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
    await bar.getByRole('button', { name: 'Save draft' }).click();
    const flow = await waitFor(
      async () => (await api('GET', `/v2/bots/${appId}/flow`)).body.draft?.flow,
      { timeoutMs: 15_000, what: 'the draft saved' },
    );
    expect(flow.states.extra).to.deep.equal({ transitions: [{ to: 'menu' }] });
    expect(flow.states.extra_copy).to.deep.equal({
      transitions: [{ to: 'menu', when: { in: ['bike', { var: 'input' }] } }],
    });
    expect(flow.states).to.not.have.property('state_1');
    expect(Object.keys(flow.layout)).to.deep.equal(['about']);
    expect(flow.layout.about.x).to.be.a('number');
    for (const [name, state] of Object.entries(DEFAULT_FLOW.states)) {
      expect(flow.states[name], name).to.deep.equal(state);
    }
    expectNoCspViolations(page);
  });
});
