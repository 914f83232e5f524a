/**
 * Free text in the flow editor, in a real browser against the real service (the embedded model
 * in its `flow` process, no LLM configured): an operator gives a button example phrases,
 * declares a global intent and adds an llm step by clicking, publishes, and the test chat shows
 * per turn what was understood, with its score, and what the llm step did.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  botLine,
  chatPanel,
  clickNode,
  details,
  expectValid,
  publish,
  say,
  TURN_MS,
} from './flow-editor-helpers.ts';
import {
  checkA11y,
  consoleService,
  releaseConsoleService,
  screenshot,
  signIn,
  type ConsoleService,
} from './support.ts';

const MENU_FLOW = {
  version: 1,
  start: 'menu',
  states: {
    menu: {
      actions: [
        {
          send: {
            text: 'How can I help?',
            buttons: [
              { id: 'book', title: 'Book a repair' },
              { id: 'hours', title: 'Opening hours' },
            ],
          },
        },
      ],
      wait: { store: 'topic', expect: 'choice' },
      transitions: [{ when: { '==': [{ var: 'topic' }, 'book'] }, to: 'bikes' }, { to: 'hours' }],
    },
    bikes: {
      actions: [{ send: { text: 'How many bikes will you bring?' } }],
      wait: { store: 'bikes', expect: 'number' },
      next: 'menu',
    },
    hours: { actions: [{ send: { text: 'Open 9 to 6.' } }], next: 'menu' },
  },
};

/** The test chat's list of what the flow understood and asked. */
const trace = (page: Page) =>
  chatPanel(page).getByRole('list', { name: 'Understood and asked' }).getByRole('listitem');

describe('flow editor: free text understood by meaning', function () {
  this.timeout(300_000);
  let service: ConsoleService;

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when an operator adds example phrases, a global intent and an llm step by clicking and publishes, then the test chat shows the option matched from free text with its score, the intent that handed off, and the llm step that could not run', async () => {
    const created = await fetch(`${service.url}/v2/bots`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${service.adminKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        name: 'Free text bot',
        flow: MENU_FLOW,
        channel: { type: 'web', details: { allowed_origins: [] } },
      }),
    });
    expect(created.status).to.equal(201);
    const appId = ((await created.json()) as { app_id: string }).app_id;

    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${appId}/flow`);
    await page.getByRole('heading', { name: /^Flow of /, level: 1 }).waitFor();
    await expectValid(page);

    // Example phrases for "Book a repair".
    await clickNode(page, 'menu');
    await details(page)
      .getByLabel('Button 1 example phrases (one a line)')
      .fill('fix my bike\nmy bike needs a repair');

    // A global intent that hands the conversation to a person, from any state.
    await page.getByRole('region', { name: /Flow graph/ }).click({ position: { x: 5, y: 5 } });
    const settings = details(page);
    await settings
      .getByRole('status')
      .filter({ hasText: /^Tokens used today \(\d{4}-\d{2}-\d{2}, UTC\): 0 of 200,000$/ })
      .waitFor();
    await settings.getByRole('button', { name: 'Add intent' }).click();
    await settings.getByLabel('Intent 1 name').fill('human');
    await settings
      .getByLabel('Intent 1 example phrases (one a line)')
      .fill('talk to a human\nI want to speak to someone\nconnect me with an agent');
    await settings
      .getByLabel('Intent 1 from any state')
      .selectOption({ label: 'yes: hand off to a person' });
    await settings.getByLabel('Intent 1 handoff message').fill('A person will answer you here.');
    await settings
      .getByLabel('Mask phone numbers, emails and card numbers sent to the LLM')
      .check();
    await settings.getByLabel('Ask the LLM when the meaning is unclear').check();
    await settings
      .getByRole('heading', { name: 'Understanding free text' })
      .scrollIntoViewIfNeeded();
    await screenshot(page, 'flow-settings-understanding');

    // An llm step after the opening hours.
    await clickNode(page, 'hours');
    const hours = details(page);
    await hours.getByLabel('New action').selectOption({ label: 'Ask the LLM' });
    await hours.getByRole('button', { name: 'Add action' }).click();
    await hours
      .getByLabel('Prompt', { exact: true })
      .fill('Say goodbye nicely to someone who asked: {{topic}}');
    await hours.getByLabel('Store the result in variable').fill('goodbye');
    await expectValid(page);
    await checkA11y(page, 'flow editor (llm step)');
    await publish(page, 'Free text');

    const flow = await fetch(`${service.url}/v2/bots/${appId}/flow`, {
      headers: { authorization: `Bearer ${service.adminKey}` },
    }).then(async (r) => ((await r.json()) as { published: { flow: any } }).published.flow);
    expect(flow.intents).to.deep.equal([
      {
        name: 'human',
        examples: ['talk to a human', 'I want to speak to someone', 'connect me with an agent'],
        global: { handoff: { message: 'A person will answer you here.' } },
      },
    ]);
    expect(flow.states.menu.actions[0].send.buttons[0].examples).to.deep.equal([
      'fix my bike',
      'my bike needs a repair',
    ]);
    expect(flow.llm).to.deep.equal({ mask_pii: true });
    // No LLM is configured here: the flow asks none, and matches by the scores alone.
    expect(flow.matching).to.deep.equal({ llm: true });
    expect(flow.states.hours.actions[1].llm).to.deep.include({ store: 'goodbye', output: 'text' });

    await page.getByRole('button', { name: 'Test chat' }).click();
    const chat = chatPanel(page);
    await chat.getByRole('status').filter({ hasText: 'Live updates: on' }).waitFor();
    await say(chat, 'hello');
    await botLine(chat, 'How can I help?').waitFor({ timeout: TURN_MS });
    await say(chat, "I'd like to get my bike fixed");
    await botLine(chat, 'How many bikes will you bring?').waitFor({ timeout: TURN_MS });
    await trace(page)
      .filter({
        hasText: /“I'd like to get my bike fixed” → option book \(score \d\.\d{3}\) in menu/,
      })
      .waitFor({ timeout: TURN_MS });

    await say(chat, 'can I talk to a human please');
    await botLine(chat, 'A person will answer you here.').waitFor({ timeout: TURN_MS });
    await trace(page)
      .filter({ hasText: /→ intent human \(score \d\.\d{3}\) in bikes/ })
      .waitFor({ timeout: TURN_MS });
    await checkA11y(page, 'test chat with the trace');
    await screenshot(page, 'flow-understanding-test-chat');

    // A new conversation presses "Opening hours": the llm step runs there, and with no LLM
    // configured it is not made; the trace says why and the flow goes on.
    await chat.getByRole('button', { name: 'Restart' }).click();
    await chat.getByText('Say hello to start the flow.').waitFor();
    await say(chat, 'hi');
    await botLine(chat, 'How can I help?').waitFor({ timeout: TURN_MS });
    await chat.getByRole('button', { name: 'Opening hours' }).click();
    await botLine(chat, 'Open 9 to 6.').waitFor({ timeout: TURN_MS });
    await trace(page)
      .filter({ hasText: /^LLM step not made \(.+\): BW_ERR_FLOW_LLM_UNAVAILABLE$/ })
      .waitFor({ timeout: TURN_MS });
  });
});
