/**
 * Broadcasts on a bot's page in a real browser against the real service (docs/outbound.md): a
 * builder previews a broadcast to every Telegram user (one opted out with "stop" is skipped and
 * the preview says so), sends it, follows it to finished, and each user who did not opt out gets
 * it once; on WhatsApp, a template broadcast reaches users whose window closed, its preview
 * saying how it fits the number's daily messaging limit.
 */
import { expect } from 'chai';
import { ECHO_FLOW } from '../support/flows.ts';
import { waitFor } from '../support/services.ts';
import { whatsappPayload } from '../support/api.ts';
import {
  apiCall,
  checkA11y,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  screenshot,
  closeWhatsAppWindows,
  signIn,
  telegramBot,
  telegramDelivered,
  telegramText,
  whatsappBot,
  type ConsoleService,
} from './support.ts';

describe('broadcasts on the bot page in a browser', function () {
  this.timeout(180_000);
  let service: ConsoleService;

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when a builder previews and sends a broadcast, then the preview counts the opted-out user as skipped, the list follows it to finished, and each other user gets it once', async () => {
    // The echo, and where the broadcast's answers go.
    const flow = {
      ...ECHO_FLOW,
      states: {
        ...ECHO_FLOW.states,
        interest: { wait: { store: 'bike' }, next: 'noted' },
        noted: { actions: [{ send: { text: 'Noted: {{bike}}' } }], next: 'listen' },
      },
    };
    const bot = await telegramBot(service, 'Broadcast shop', flow);
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
    expect(
      await form.getByLabel('The answers go to').locator('option').allTextContents(),
    ).to.deep.equal(['where the conversation is', 'state interest', 'state listen']);
    await form.getByLabel('The answers go to').selectOption('interest');
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
    // An answer goes to the state chosen, not to the echo.
    await telegramText(service, bot, { chat: users[0]!, from: 'User 0', text: 'e-bike' });
    await waitFor(() => telegramDelivered(service, users[0]!, 'Noted: e-bike').length > 0, {
      timeoutMs: 60_000,
      what: 'the answer taken at the state chosen',
    });
    expect(telegramDelivered(service, users[0]!, 'echo: e-bike')).to.have.length(0);
    const csv = await row.getByRole('link', { name: /Outcomes \(CSV\)/ }).getAttribute('href');
    expect(csv).to.match(/^\/v2\/broadcasts\/[0-9a-f-]+\/recipients$/);
    expectNoCspViolations(page);
  });

  it('when a builder sends a WhatsApp template broadcast, then its number’s limit is raised on the channel, users whose window closed get it filled, and the preview says the number’s daily limit has room for all of them', async () => {
    const number = '4420001';
    const appId = await whatsappBot(service, {
      name: 'Bike shop on WhatsApp',
      flow: ECHO_FLOW,
      number,
      account: '7780001',
      templates: [
        {
          name: 'service_due',
          language: 'en',
          status: 'APPROVED',
          category: 'UTILITY',
          components: [{ type: 'BODY', text: 'Hi, your bike is due for a {{1}} service.' }],
        },
      ],
    });
    await apiCall(service, 'POST', `/v2/bots/${appId}/templates/sync`);
    const users = ['15550008001', '15550008002'];
    for (const [i, from] of users.entries()) {
      const callback = await fetch(`${service.url}/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsappPayload(number, [{ id: `wamid.bc${i}`, body: 'hi', from }])),
      });
      expect(callback.status).to.equal(200);
    }
    await waitFor(
      () =>
        users.every((to) =>
          service.telegram.calls.some(
            (c) => c.platform === 'whatsapp' && c.body.to === to && c.delivered,
          ),
        ),
      { timeoutMs: 60_000, what: 'the echoes on WhatsApp' },
    );
    // A day passes: their windows close.
    await closeWhatsAppWindows(service, appId);

    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${appId}`);
    // The number moved up a tier in WhatsApp Manager: its limit is raised on the channel.
    const limit = page.getByRole('form', { name: 'Messaging limit' });
    await limit.getByLabel('Messaging limit').selectOption('1000');
    await limit.getByRole('button', { name: 'Save limit' }).click();
    await limit.getByText('Saved.').waitFor();
    await page.getByText('messaging limit 1,000 users a day').waitFor();
    const section = page.getByRole('region', { name: 'Broadcasts' });
    const form = section.getByRole('form', { name: 'New broadcast' });
    await form.getByLabel('Broadcast name').fill('Service reminders');
    await form.getByLabel(/A WhatsApp template/).check();
    await form
      .getByRole('combobox', { name: /^Template/ })
      .selectOption({ label: 'service_due (en)' });
    await form.getByLabel('Body {{1}}').fill('spring');
    expect(await form.getByLabel('They will read:').textContent()).to.equal(
      'Hi, your bike is due for a spring service.',
    );
    await form.getByRole('button', { name: 'Preview' }).click();
    await form
      .getByRole('status')
      .filter({
        hasText:
          '2 of 2 would get it; skipped: none. It writes first to 2 users whose 24-hour window is closed; this number may do that for 1,000 users a day, and did for 0 in the last 24 hours: all of them at once.',
      })
      .waitFor();
    await checkA11y(page, 'template broadcast preview');
    await screenshot(page, 'bot-broadcast-template');
    await form.getByRole('button', { name: 'Send' }).click();
    const row = section.getByRole('row').filter({ hasText: 'Service reminders' });
    await row.getByRole('cell', { name: 'finished' }).waitFor({ timeout: 60_000 });
    // These users' only: the service is shared with other files' tests, which send templates too.
    const sent = service.telegram.calls.filter(
      (c) =>
        c.platform === 'whatsapp' &&
        users.includes(String(c.body.to)) &&
        c.body.type === 'template' &&
        c.delivered,
    );
    expect(sent.map((c) => c.body.to).sort()).to.deep.equal(users);
    const template = sent[0]!.body.template as { components: { parameters: unknown }[] };
    expect(template.components[0]?.parameters).to.deep.equal([{ type: 'text', text: 'spring' }]);

    // One of them, one by one: "Write to this user" sends a template too, its window closed.
    const { items } = await apiCall(service, 'GET', `/v2/bots/${appId}/conversations`);
    const first = (items as { id: string; chat_id: string }[]).find((c) => c.chat_id === users[0]);
    await page.goto(`/console/conversations/${first!.id}`);
    const write = page.getByRole('form', { name: 'Write to this user' });
    await write.getByLabel(/Send an approved template/).check();
    await write
      .getByRole('combobox', { name: /^Template/ })
      .selectOption({ label: 'service_due (en)' });
    await write.getByLabel('Body {{1}}').fill('summer');
    await write.getByRole('button', { name: 'Send' }).click();
    await write.getByRole('status').filter({ hasText: 'Accepted' }).waitFor();
    await waitFor(
      () =>
        service.telegram.calls.some(
          (c) =>
            c.platform === 'whatsapp' &&
            c.body.to === users[0] &&
            c.body.type === 'template' &&
            JSON.stringify(c.body.template).includes('summer') &&
            c.delivered,
        ),
      { timeoutMs: 60_000, what: 'the template written first' },
    );
    await checkA11y(page, 'conversation, a template written first');
    expectNoCspViolations(page);
  });
});
