/**
 * Conversation tests in the console, as an operator meets them: a test chat saved as a test, the
 * Tests panel running it, and a publish refused by it, with the failure shown and an owner's
 * "Publish anyway".
 */
import { expect } from 'chai';
import { shopFlow } from '../support/flows.ts';
import { botLine, chatPanel, say, TURN_MS } from './flow-editor-helpers.ts';
import {
  apiCall,
  checkA11y,
  consoleService,
  releaseConsoleService,
  screenshot,
  signIn,
  type ConsoleService,
} from './support.ts';

describe('conversation tests in the console', function () {
  this.timeout(300_000);
  let service: ConsoleService;

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when an operator saves a test chat as a test, then the Tests panel runs it, and a draft that changes the reply is refused at publish with the failure shown until the owner publishes anyway', async () => {
    const created = await apiCall(service, 'POST', '/v2/bots', {
      name: 'Tested shop',
      flow: shopFlow(),
      channel: { type: 'web', details: { allowed_origins: [] } },
    });
    const appId = created.app_id as string;
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${appId}/flow`);
    await page.getByRole('heading', { name: 'Flow of Tested shop', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Test chat' }).click();
    const chat = chatPanel(page);
    await chat.getByText('Running version 1.', { exact: false }).waitFor();
    await chat.getByRole('status').filter({ hasText: 'Live updates: on' }).waitFor();
    await say(chat, 'hello');
    await botLine(chat, 'Hi! What do you need?').waitFor({ timeout: TURN_MS });
    await chat.getByRole('button', { name: 'Opening hours' }).click();
    await botLine(chat, 'We are open 9 to 5.').waitFor({ timeout: TURN_MS });
    await chat.getByLabel('Test name').fill('opening hours');
    await chat.getByRole('button', { name: 'Save as test' }).click();
    await chat.getByText('Saved as test “opening hours” (2 steps).').waitFor({ timeout: TURN_MS });

    await page.getByRole('button', { name: 'Tests', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Conversation tests' });
    await panel.getByRole('list', { name: 'Tests' }).getByText('opening hours').waitFor();
    await panel.getByRole('button', { name: 'Run tests on the draft' }).click();
    await panel.getByText('1 passed, 0 failed.').waitFor({ timeout: TURN_MS });
    await checkA11y(page, 'tests panel');

    // A draft that changes the reply: the publish is refused, naming the expectation.
    await apiCall(service, 'PUT', `/v2/bots/${appId}/flow/draft`, {
      flow: shopFlow({ hours: 'We are open 8 to 4.' }),
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Flow of Tested shop', level: 1 }).waitFor();
    const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
    await bar
      .getByRole('status')
      .filter({ hasText: /^Valid/ })
      .waitFor();
    await bar.getByRole('button', { name: 'Publish' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish the draft?' });
    await dialog.getByRole('button', { name: 'Publish' }).click();
    const refusal = dialog.getByRole('alert');
    await refusal
      .getByText("Not published: the draft fails the bot's conversation tests.")
      .waitFor({ timeout: TURN_MS });
    await refusal.getByText('Failed: opening hours').waitFor({ timeout: TURN_MS });
    await refusal
      .getByText(
        'expected reply 0 to be "We are open 9 to 5."; the bot said "We are open 8 to 4."',
        {
          exact: false,
        },
      )
      .waitFor();
    await checkA11y(page, 'publish refused by a test');
    await screenshot(page, 'publish-refused-by-test');
    expect((await apiCall(service, 'GET', `/v2/bots/${appId}`)).flow_version).to.equal(1);

    await dialog.getByRole('button', { name: 'Publish anyway (owner)' }).click();
    await bar.getByRole('status').filter({ hasText: 'Published version 2.' }).waitFor();
    const audit = await apiCall(service, 'GET', `/v2/audit?action=flow.publish&app_id=${appId}`);
    expect(audit.items[0].summary.after.tests_overridden).to.equal('opening hours');
  });
});
