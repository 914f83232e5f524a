/**
 * Broadcasts on a bot's page in a real browser against the real service (docs/outbound.md): a
 * builder previews a broadcast to every Telegram user (one opted out with "stop" is skipped and
 * the preview says so), sends it, follows it to finished, and each user who did not opt out gets
 * it once.
 */
import { expect } from 'chai';
import { ECHO_FLOW } from '../support/flows.ts';
import { waitFor } from '../support/services.ts';
import {
  checkA11y,
  consoleService,
  expectNoCspViolations,
  screenshot,
  signIn,
  telegramBot,
  telegramDelivered,
  telegramText,
  type ConsoleService,
} from './support.ts';

describe('broadcasts on the bot page in a browser', function () {
  this.timeout(180_000);
  let service: ConsoleService;

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  it('when a builder previews and sends a broadcast, then the preview counts the opted-out user as skipped, the list follows it to finished, and each other user gets it once', async () => {
    const bot = await telegramBot(service, 'Broadcast shop', ECHO_FLOW);
    const users = [660_001, 660_002, 660_003];
    for (const [i, chat] of users.entries()) {
      await telegramText(service, bot, { chat, from: `User ${i}`, text: 'hello' });
      await waitFor(() => telegramDelivered(service, chat, 'echo: hello').length > 0, {
        timeoutMs: 60_000,
        what: `the echo to ${chat}`,
      });
    }
    await telegramText(service, bot, { chat: users[2]!, from: 'User 2', text: 'STOP' });
    await waitFor(() => telegramDelivered(service, users[2]!, 'echo: STOP').length > 0, {
      timeoutMs: 60_000,
      what: 'the stop word handled',
    });

    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${bot.appId}`);
    const section = page.getByRole('region', { name: 'Broadcasts' });
    await section.getByText('No broadcast yet.').waitFor();
    const form = section.getByRole('form', { name: 'New broadcast' });
    await form.getByLabel('Broadcast name').fill('Spring news');
    await form.getByLabel('Message').fill('Spring bikes are in.');
    await form.getByRole('button', { name: 'Preview' }).click();
    await form
      .getByRole('status')
      .filter({ hasText: '2 of 3 would get it; skipped: 1 opted out.' })
      .waitFor();
    await checkA11y(page, 'broadcast preview');
    await form.getByRole('button', { name: 'Send' }).click();
    const row = section.getByRole('row').filter({ hasText: 'Spring news' });
    await row.getByRole('cell', { name: 'finished' }).waitFor({ timeout: 60_000 });
    await row.getByText(/2 sent/).waitFor();
    await checkA11y(page, 'broadcast finished');
    await screenshot(page, 'bot-broadcasts');
    for (const chat of users.slice(0, 2))
      expect(telegramDelivered(service, chat, 'Spring bikes are in.')).to.have.length(1);
    expect(telegramDelivered(service, users[2]!, 'Spring bikes are in.')).to.have.length(0);
    const csv = await row.getByRole('link', { name: /Outcomes \(CSV\)/ }).getAttribute('href');
    expect(csv).to.match(/^\/v2\/broadcasts\/[0-9a-f-]+\/recipients$/);
    expectNoCspViolations(page);
  });
});
