/**
 * The agent inbox in a real browser against the real service (all six components; Telegram stood
 * in for on loopback): a user on Telegram asks for a person through the bot's flow, and an agent,
 * a real account assigned to the bot, sees the conversation arrive in the inbox without a reload,
 * sees another agent's claim and release live (and a claim that lost said plainly), claims it,
 * types (Telegram shows "typing…"), answers, sees the user's answer arrive, writes an internal
 * note (never sent), and hands the conversation back to the bot at a state it picks; the user then
 * gets that state's message from the bot. A viewer reads a handoff without a button to act; an
 * agent closes one after a confirmation. On WhatsApp, once the user's 24-hour window closed, the
 * holder is told so and sends an approved template instead of free text.
 */
import { expect } from 'chai';
import { helpFlow } from '../support/flows.ts';
import { waitFor } from '../support/services.ts';
import { whatsappPayload } from '../support/api.ts';
import {
  apiCall,
  checkA11y,
  closeWhatsAppWindows,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  makeAccount,
  screenshot,
  sessionOf,
  signIn,
  signInWithPassword,
  telegramBot,
  telegramDelivered,
  telegramText,
  whatsappBot,
  type ConsoleService,
  type TelegramBot,
} from './support.ts';

const DESK_FLOW = helpFlow({
  team: 'parcels',
  fallback: 'menu',
  survey: 'How did we do? Give us a mark from 1 to 5.',
  afterSurvey: 'menu',
});

describe('the agent inbox in a browser', function () {
  this.timeout(240_000);
  let service: ConsoleService;

  const received = (chat: number, text: string) => telegramDelivered(service, chat, text);
  const userGets = (chat: number, text: string) =>
    waitFor(() => received(chat, text).length > 0, { timeoutMs: 60_000, what: `"${text}" sent` });
  const say = (bot: TelegramBot, chat: number, text: string, from = 'Tomás') =>
    telegramText(service, bot, { chat, from, text });

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when a user asks for a person, then an agent sees it arrive live, claims it, types, answers, sees the reply, notes, and hands back at a state the user then gets', async () => {
    const bot = await telegramBot(service, 'Parcel desk', DESK_FLOW);
    const { appId } = bot;
    const ada = await makeAccount(service, { name: 'Ada', bots: [appId] });
    const ben = await makeAccount(service, { name: 'Ben', bots: [appId] });
    const chat = 810_001;

    // Ada, an agent, signs in and opens the inbox: nobody waits yet.
    const page = await signInWithPassword(service, ada);
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Inbox', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    await page.getByText('Nobody is waiting.').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live updates: on' }).waitFor();

    // The user talks to the bot and asks for a person: the conversation arrives, no reload.
    await say(bot, chat, 'hi');
    await userGets(chat, 'Menu: say help for a person.');
    await say(bot, chat, 'help');
    await userGets(chat, 'A person from parcels will answer you.');
    const row = page.getByRole('row', { name: /Tomás/ });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).to.contain('Waiting for an agent');
    expect(await row.textContent()).to.contain('Parcel desk');
    expect(await row.textContent()).to.contain('parcels');
    expect(await row.textContent()).to.contain('telegram');
    // The waiting time goes on by itself.
    await row.getByRole('cell', { name: /^([2-9]|\d\d) s$/ }).waitFor({ timeout: 30_000 });
    await checkA11y(page, 'inbox');
    await screenshot(page, 'inbox');

    // Its view: what led to it, the flow variables; the user's message while waiting arrives.
    await row.getByRole('link', { name: 'Tomás' }).click();
    await page.getByRole('heading', { name: 'Handoff: Tomás', level: 1 }).waitFor();
    const log = page.getByRole('log', { name: 'Transcript' });
    await log.getByText('A person from parcels will answer you.').waitFor();
    await log.getByText('help', { exact: true }).waitFor();
    await page.getByText('"parcels"').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live updates: on' }).waitFor();
    await say(bot, chat, 'is anybody there?');
    await log.getByText('is anybody there?').waitFor({ timeout: 30_000 });

    // Ben claims it first: Ada's page says so live; a tab of hers that missed it is told plainly.
    const stale = await page.context().newPage();
    await stale.route('**/v2/events?**', (route) => route.abort());
    await stale.goto(page.url());
    await stale.getByRole('button', { name: 'Claim' }).waitFor();
    const benSession = await sessionOf(service, ben);
    const handoffId = page.url().split('/').at(-1)!;
    await apiCall(service, 'POST', `/v2/handoffs/${handoffId}/claim`, undefined, benSession);
    await page.getByText(`Claimed by ${ben.email}`).waitFor();
    expect(await page.getByRole('button', { name: 'Claim' }).count()).to.equal(0);
    await stale.getByRole('button', { name: 'Claim' }).click();
    await stale
      .getByRole('alert')
      .filter({ hasText: `Claimed by ${ben.email}` })
      .waitFor();
    await stale.close();
    await apiCall(service, 'POST', `/v2/handoffs/${handoffId}/release`, undefined, benSession);
    await page.getByText('Waiting for an agent', { exact: true }).waitFor();

    // Ada claims it, types (Telegram shows the user "typing…") and answers.
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText('Claimed by you').waitFor();
    const reply = page.getByRole('form', { name: 'Reply to Tomás' });
    // Typed at a person's pace: a typing call that fails is tried again at the next keystroke.
    await reply.getByLabel('Reply').pressSequentially('Your parcel left on Monday.', { delay: 60 });
    await waitFor(
      () =>
        service.telegram.calls.some(
          (c) => c.method === 'sendChatAction' && c.chat === String(chat),
        ),
      { timeoutMs: 30_000, what: 'sendChatAction for the chat' },
    );
    await reply.getByRole('button', { name: 'Send' }).click();
    await userGets(chat, 'Your parcel left on Monday.');
    const answer = log.getByRole('listitem').filter({ hasText: 'Your parcel left on Monday.' });
    await answer.waitFor();
    expect(await answer.textContent()).to.contain(`Agent ${ada.email}`);
    await waitFor(async () => (await reply.getByLabel('Reply').inputValue()) === '', {
      what: 'the reply box emptied once sent',
    });

    // The user's answer while Ada holds it arrives live.
    await say(bot, chat, 'great, thank you!');
    await log.getByText('great, thank you!').waitFor({ timeout: 30_000 });

    // An internal note: in the transcript, marked as such, never sent.
    await page
      .getByLabel('Note for the team (never sent)')
      .fill('Asked twice where the parcel is.');
    await page.getByRole('button', { name: 'Add note' }).click();
    const note = log.getByRole('listitem').filter({ hasText: 'Asked twice where the parcel is.' });
    await note.waitFor();
    expect(await note.textContent()).to.contain(`Internal note by ${ada.email} (not sent)`);
    await checkA11y(page, 'a claimed handoff');
    await screenshot(page, 'inbox-handoff');

    // Hand back at the survey: the bot asks it, and the page says the handoff ended.
    await page.getByLabel('Hand back at state').selectOption('survey');
    await page.getByRole('button', { name: 'Hand back to the bot' }).click();
    await userGets(chat, 'How did we do? Give us a mark from 1 to 5.');
    await page.getByText('Handed back to the bot at survey').waitFor({ timeout: 30_000 });
    expect(received(chat, 'Asked twice where the parcel is.')).to.have.length(0);
    // The bot stayed quiet while a person had the conversation.
    expect(received(chat, 'Menu: say help for a person.')).to.have.length(1);

    // The inbox is empty again.
    await page.getByRole('link', { name: 'Back to the inbox' }).click();
    await page.getByText('Nobody is waiting.').waitFor();
    expectNoCspViolations(page);
  });

  it('when a viewer filters the inbox by bot and queue and opens a handoff, then it is read-only and follows a note live; when an agent closes one after confirming, then it ends and the next message starts the flow over', async () => {
    const bot = await telegramBot(service, 'Bike desk', DESK_FLOW);
    const ada = await makeAccount(service, { name: 'Ada', bots: [bot.appId] });
    const vera = await makeAccount(service, { name: 'Vera', role: 'viewer' });
    const chat = 810_002;
    await say(bot, chat, 'hi', 'Lena');
    await userGets(chat, 'Menu: say help for a person.');
    await say(bot, chat, 'help', 'Lena');
    await userGets(chat, 'A person from parcels will answer you.');

    // A viewer reads the handoff: no claim, no reply, no note, no hand back.
    const viewer = await signInWithPassword(service, vera);
    await viewer
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Inbox', exact: true })
      .click();
    // Filtered by bot and queue (kept in the URL): another queue of this bot has nobody.
    const filters = viewer.getByRole('search', { name: 'Filter the inbox' });
    await filters.getByLabel('Bot').selectOption({ label: 'Bike desk' });
    await filters.getByLabel('Queue').fill('returns');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await viewer.getByText('Nobody is waiting in this view.').waitFor();
    expect(viewer.url()).to.contain(`bot=${bot.appId}`);
    await filters.getByLabel('Queue').fill('parcels');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await viewer.getByRole('row', { name: /Lena/ }).getByRole('link', { name: 'Lena' }).click();
    await viewer.getByRole('heading', { name: 'Handoff: Lena', level: 1 }).waitFor();
    await viewer.getByText('You can read this handoff; owners and agents answer').waitFor();
    await viewer
      .getByRole('log', { name: 'Transcript' })
      .getByText('help', { exact: true })
      .waitFor();
    for (const name of [
      'Claim',
      'Send',
      'Add note',
      'Hand back to the bot',
      'Close the conversation',
    ]) {
      expect(await viewer.getByRole('button', { name }).count(), name).to.equal(0);
    }
    await checkA11y(viewer, 'a handoff, read-only');

    // An agent closes it; the dialog asks first, and Cancel changes nothing.
    const page = await signInWithPassword(service, ada);
    await page.goto(viewer.url());
    await page.getByRole('heading', { name: 'Handoff: Lena', level: 1 }).waitFor();
    // Her note reaches the viewer's page live.
    await page.getByLabel('Note for the team (never sent)').fill('Same question as last week.');
    await page.getByRole('button', { name: 'Add note' }).click();
    await viewer
      .getByRole('log', { name: 'Transcript' })
      .getByText('Same question as last week.')
      .waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Close the conversation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Close the conversation with Lena?' });
    await dialog.waitFor();
    await checkA11y(page, 'close dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Waiting for an agent', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Close the conversation' }).click();
    await dialog.getByRole('button', { name: 'Close conversation' }).click();
    await page.getByText('Closed', { exact: true }).waitFor({ timeout: 30_000 });
    // The viewer's page follows live.
    await viewer.getByText('Closed', { exact: true }).waitFor({ timeout: 30_000 });

    // The user's next message starts the flow over.
    const menus = received(chat, 'Menu: say help for a person.').length;
    await say(bot, chat, 'hello again', 'Lena');
    await waitFor(() => received(chat, 'Menu: say help for a person.').length > menus, {
      timeoutMs: 60_000,
      what: 'the menu again',
    });
    expectNoCspViolations(page);
    expectNoCspViolations(viewer);
  });

  it('when a WhatsApp user’s 24-hour window has closed, then the holder is told so and sends an approved template, filled and previewed, instead of free text', async () => {
    const number = '4410001';
    const appId = await whatsappBot(service, {
      name: 'Parcel desk on WhatsApp',
      flow: DESK_FLOW,
      number,
      account: '7770001',
      templates: [
        {
          name: 'parcel_update',
          language: 'en',
          status: 'APPROVED',
          category: 'UTILITY',
          components: [
            { type: 'HEADER', format: 'DOCUMENT' },
            { type: 'BODY', text: 'Hi {{1}}, parcel {{2}} is on its way.' },
            {
              type: 'BUTTONS',
              buttons: [
                { type: 'URL', text: 'Track', url: 'https://parcels.example.com/track/{{1}}' },
              ],
            },
          ],
        },
        {
          name: 'draft_promo',
          language: 'en',
          status: 'REJECTED',
          category: 'MARKETING',
          components: [{ type: 'BODY', text: 'Sale!' }],
        },
      ],
    });
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    // A builder's step first: the bot's page syncs its templates from the Business Account.
    await page.goto(`/console/bots/${appId}`);
    const section = page.getByRole('region', { name: 'WhatsApp templates' });
    await section.getByText('No template yet').waitFor();
    await section.getByRole('button', { name: 'Sync templates' }).click();
    await section.getByRole('status').filter({ hasText: 'Synced: 2 templates.' }).waitFor();
    const rows = section.getByRole('table', { name: 'Templates' }).getByRole('row');
    await rows.nth(2).waitFor();
    expect(await rows.allTextContents()).to.deep.equal([
      'NameLanguageCategoryStatusWhat it takes',
      'draft_promoenMARKETINGREJECTEDnone',
      'parcel_updateenUTILITYAPPROVEDbody 2, a document link, 1 button address',
    ]);
    await checkA11y(page, 'bot page with WhatsApp templates');
    await screenshot(page, 'bot-templates');

    // The user writes, asks for a person; a day passes before an agent gets to it.
    const wa = (id: string, body: string) =>
      fetch(`${service.url}/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsappPayload(number, [{ id, body, from: '15550007777' }])),
      });
    expect((await wa('wamid.d1', 'hi')).status).to.equal(200);
    expect((await wa('wamid.d2', 'help')).status).to.equal(200);
    const handoff = await waitFor(
      async () =>
        (await apiCall(service, 'GET', `/v2/handoffs?app_id=${appId}`)).items[0] as
          { id: string } | undefined,
      { timeoutMs: 60_000, what: 'the WhatsApp handoff' },
    );
    await closeWhatsAppWindows(service, appId);

    await page.goto(`/console/inbox/${handoff.id}`);
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByRole('note').filter({ hasText: 'window closed at' }).waitFor();
    const form = page.getByRole('form', { name: /a template$/ });
    const template = form.getByLabel('Template');
    // The list shows once the templates are read; the rejected one is not offered.
    await template.waitFor();
    expect(await template.locator('option').allTextContents()).to.deep.equal([
      'Choose a template…',
      'parcel_update (en)',
    ]);
    await template.selectOption({ label: 'parcel_update (en)' });
    await form.getByLabel('Body {{1}}').fill('Tomás');
    await form.getByLabel('Body {{2}}').fill('PX-42');
    const send = form.getByRole('button', { name: 'Send template' });
    // Not before the document's link and the button's address end are given.
    expect(await send.isDisabled()).to.equal(true);
    await form
      .getByLabel('Header document (https link)')
      .fill('https://parcels.example.com/px-42.pdf');
    await form.getByLabel('Document file name (optional)').fill('PX-42.pdf');
    await form.getByLabel('Button “Track”: https://parcels.example.com/track/{{1}}').fill('PX-42');
    expect(await form.getByLabel('They will read:').textContent()).to.equal(
      'Hi Tomás, parcel PX-42 is on its way.',
    );
    await checkA11y(page, 'inbox, template once a window closed');
    await screenshot(page, 'inbox-template');
    await send.click();
    const sent = await waitFor(
      () =>
        // This user's: the service is shared with other files' tests, which send templates too.
        service.telegram.calls.find(
          (c) =>
            c.platform === 'whatsapp' &&
            c.body.to === '15550007777' &&
            c.body.type === 'template' &&
            c.delivered,
        ),
      { timeoutMs: 60_000, what: 'the template sent to WhatsApp' },
    );
    expect(sent.body.template).to.deep.equal({
      name: 'parcel_update',
      language: { code: 'en' },
      components: [
        {
          type: 'header',
          parameters: [
            {
              type: 'document',
              document: { link: 'https://parcels.example.com/px-42.pdf', filename: 'PX-42.pdf' },
            },
          ],
        },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Tomás' },
            { type: 'text', text: 'PX-42' },
          ],
        },
        {
          type: 'button',
          sub_type: 'url',
          index: '0',
          parameters: [{ type: 'text', text: 'PX-42' }],
        },
      ],
    });
    await page
      .getByRole('log', { name: 'Transcript' })
      .getByText('Hi Tomás, parcel PX-42 is on its way.')
      .waitFor();
    expectNoCspViolations(page);
  });
});
