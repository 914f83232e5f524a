/**
 * The Analytics page and drop-off on the flow graph in a real browser against the real service:
 * Telegram users, through the real pipeline, go through a menu; some finish, some give up at the
 * menu, one is asked again. The page shows their figures, the bot's response time, where they
 * gave up, links to the CSV, and the flow graph draws each state's drop-off on its node.
 */
import { expect } from 'chai';
import { waitFor } from '../support/services.ts';
import {
  apiCall,
  checkA11y,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  screenshot,
  signIn,
  telegramBot,
  telegramDelivered,
  telegramText,
  type ConsoleService,
  type TelegramBot,
} from './support.ts';

const FLOW = {
  version: 1,
  start: 'menu',
  states: {
    menu: {
      actions: [
        {
          send: {
            text: 'Hours or address?',
            buttons: [
              { id: 'hours', title: 'Hours' },
              { id: 'address', title: 'Address' },
            ],
          },
        },
      ],
      wait: { store: 'choice', expect: 'choice', retry_prompt: 'Pick one, please.' },
      transitions: [
        { when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'hours' },
        { to: 'address' },
      ],
    },
    hours: { actions: [{ send: { text: 'Open 9 to 5.' } }], end: true },
    address: { actions: [{ send: { text: '1 Spoke Street.' } }], end: true },
  },
};

describe('analytics page in a browser', function () {
  this.timeout(180_000);
  let service: ConsoleService;
  let bot: TelegramBot;

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
    bot = await telegramBot(service, 'Figures bot', FLOW);
    // Three users finish (two by hours, one asked again first), two give up at the menu.
    const talk = async (chat: number, lines: [string, string][]) => {
      for (const [text, reply] of lines) {
        await telegramText(service, bot, { chat, from: `User ${chat}`, text });
        await waitFor(() => telegramDelivered(service, chat, reply).length > 0 || undefined, {
          timeoutMs: 60_000,
          what: `"${reply}" to chat ${chat}`,
        });
      }
    };
    await Promise.all([
      talk(801, [
        ['hi', 'Hours or address?'],
        ['Hours', 'Open 9 to 5.'],
      ]),
      talk(802, [
        ['hi', 'Hours or address?'],
        ['what?', 'Pick one, please.'],
        ['Hours', 'Open 9 to 5.'],
      ]),
      talk(803, [
        ['hi', 'Hours or address?'],
        ['Address', '1 Spoke Street.'],
      ]),
      talk(804, [['hi', 'Hours or address?']]),
      talk(805, [['hi', 'Hours or address?']]),
    ]);
    await waitFor(
      async () =>
        (await apiCall(service, 'GET', `/v2/bots/${bot.appId}/analytics`)).totals.messages_in ===
          9 || undefined,
      { timeoutMs: 20_000, what: 'every turn counted' },
    );
  });

  after(releaseConsoleService);

  it('when an operator opens a bot’s Analytics, then the figures, where users give up and the CSV are there, and the flow graph shows each state’s drop-off', async () => {
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${bot.appId}`);
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();

    const card = (label: string) =>
      page
        .locator('.analytics-cards > div')
        .filter({ has: page.getByText(label, { exact: true }) });
    await card('Conversations').getByText('5', { exact: true }).waitFor();
    await card('Completed').getByText('60 %').waitFor();
    await card('Users').getByText('5 new, 0 returning').waitFor();
    await card('Not understood').getByText('1 asked again, 0 gave up').waitFor();
    // Each of the nine messages got an answer, timed; no handoff, no refused reply.
    await card('Bot response time')
      .getByText(/^median; 90 % within .+ \(9 answers\)$/)
      .waitFor();
    await card('Handoffs resolved by agents').getByText('no handoff ended in this range').waitFor();
    await card('First agent reply').getByText('no handoffs answered in this range').waitFor();
    await card('Replies refused').getByText('0', { exact: true }).waitFor();

    const states = page.getByRole('table', { name: 'States' });
    const menu = states.getByRole('row', { name: /^menu/ });
    // Five entered, three went on, two gave up there (40 %), one asked again.
    expect(await menu.getByRole('cell').allTextContents()).to.deep.equal([
      '5',
      '3',
      '0',
      '0',
      '2 (40 %)',
      '1',
    ]);
    // Most given up first.
    expect(await states.getByRole('rowheader').allTextContents()).to.deep.equal([
      'menu',
      'address',
      'hours',
    ]);
    const csv = await page.getByRole('link', { name: 'by state' }).getAttribute('href');
    const download = await page.request.get(csv!);
    expect((await download.text()).trim().split('\n')[0]).to.equal(
      'state,entered,left_forward,ended,handoffs,reasks,fallbacks,abandoned',
    );
    await checkA11y(page, 'analytics');
    await screenshot(page, 'analytics');

    // The range in the URL: 30 days keeps today's figures.
    await page.getByLabel('Range').selectOption({ label: 'last 30 days' });
    await page.waitForURL(/days=30/);
    await card('Conversations').getByText('5', { exact: true }).waitFor();

    await page.getByRole('link', { name: 'See it on the flow graph' }).click();
    await page.getByRole('heading', { name: /^Flow of Figures bot/, level: 1 }).waitFor();
    const graph = page.getByRole('region', { name: /Flow graph/ });
    await graph
      .getByLabel('State menu', { exact: true })
      .getByText('5 entered · 2 gave up (40 %) · 1 not understood')
      .waitFor();
    await graph.getByLabel('State hours', { exact: true }).getByText('2 entered').waitFor();
    expect(await page.getByLabel('Drop-off').inputValue()).to.equal('30');
    await screenshot(page, 'flow-drop-off');
    // Off: the nodes are as they were.
    await page.getByLabel('Drop-off').selectOption({ label: 'off' });
    await graph.locator('.state-node-stats').first().waitFor({ state: 'detached' });
    expectNoCspViolations(page);
  });
});
