/**
 * The Audit page in a real browser against the real service: a bot renamed on its page shows up
 * as a bot.update row by the console, with the old and new name; filters narrow the table.
 */
import { expect } from 'chai';
import {
  checkA11y,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  screenshot,
  signIn,
  type ConsoleService,
} from './support.ts';
import { waitFor } from '../support/services.ts';

describe('audit page in a browser', function () {
  this.timeout(120_000);
  let service: ConsoleService;

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when an operator renames a bot and opens Audit, then the newest row is the rename by "admin-key" (the key the console signed in with) with old and new name, and the action filter keeps it', async () => {
    const created = await fetch(`${service.url}/v2/bots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Audit shop',
        channel: { type: 'web', details: { allowed_origins: ['https://shop.example.test'] } },
      }),
    });
    expect(created.status).to.equal(201);
    const appId = ((await created.json()) as { app_id: string }).app_id;

    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${appId}`);
    await page.getByRole('heading', { name: 'Audit shop', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Audit shop renamed');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'Audit shop renamed', level: 1 }).waitFor();

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Audit' })
      .click();
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'Changes, newest first' });
    const newest = table.getByRole('row').nth(1);
    await newest.getByText('bot.update').waitFor();
    expect(await newest.getByRole('cell').nth(1).textContent()).to.equal('admin-key');
    await newest.getByText('"Audit shop" → "Audit shop renamed"').waitFor();
    // The bot was created with the admin key: that row is there too, by admin-key.
    await table
      .getByRole('row')
      .filter({ hasText: 'bot.create' })
      .filter({ hasText: appId })
      .first()
      .waitFor();
    await checkA11y(page, 'audit');
    await screenshot(page, 'audit');

    await page.getByLabel('Action').fill('bot.update');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/action=bot\.update/);
    // The rows of the filtered read: the unfiltered table's first row says bot.update too, and the
    // table is empty for a moment while the filtered rows load.
    const actions = await waitFor(
      async () => {
        const all = await table.locator('tbody tr td:nth-child(3)').allTextContents();
        return all.length > 0 && all.every((action) => action === 'bot.update') ? all : undefined;
      },
      { what: 'only bot.update rows' },
    );
    expect(new Set(actions)).to.deep.equal(new Set(['bot.update']));
    expectNoCspViolations(page);
  });
});
