/**
 * The Operations and Conversations pages in a real browser against the real service: the
 * processes and topic backlogs, a dead letter (a turn whose state cannot be stored, a database
 * trigger standing in for a bug) listed, inspected and replayed from the page once fixed, and a Telegram bot's conversations, seeded
 * through the real pipeline, narrowed by channel and by words.
 */
import { expect } from 'chai';
import { ECHO_FLOW } from '../support/flows.ts';
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

const COMPONENTS = ['api', 'channel', 'language', 'flow', 'retriver', 'indexer'];

describe('operations and conversations pages in a browser', function () {
  this.timeout(180_000);
  let service: ConsoleService;

  const admin = (method: string, path: string, body?: unknown) =>
    apiCall(service, method, path, body);
  const repliesTo = (chat: number, text: string) => telegramDelivered(service, chat, text);
  const say = (bot: TelegramBot, chat: number, from: string, text: string) =>
    telegramText(service, bot, { chat, from, text });

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it("when storing one conversation's state fails, then the Operations page lists the flow dead letter, shows it, and once fixed replays it from the page and the reply is delivered once", async () => {
    const bot = await telegramBot(service, 'Ops echo', ECHO_FLOW);
    const chat = 640_001;
    const text = 'poison-640001 please';
    // A stand-in for a bug: a trigger refuses to store this conversation's state.
    const { db } = service;
    await db.raw(`
      create function poison_state() returns trigger language plpgsql as $$
      begin
        if new.state::text like '%poison-640001%' then raise exception 'poisoned state'; end if;
        return new;
      end $$`);
    await db.raw(`
      create trigger poison_state before insert or update on conversation_state
      for each row execute function poison_state()`);
    let poisoned = true;
    const cure = async () => {
      if (!poisoned) return;
      poisoned = false;
      await db.raw('drop trigger poison_state on conversation_state');
      await db.raw('drop function poison_state()');
    };
    try {
      await say(bot, chat, 'Olga', text);

      const page = await service.newPage();
      await signIn(page, service.adminKey);
      await page.getByRole('navigation').getByRole('link', { name: 'Operations' }).click();
      await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();

      // Every component has a process, seen recently, and every topic its backlog.
      const processes = page.getByRole('table').filter({ has: page.getByText('Last seen') });
      for (const component of COMPONENTS) {
        const row = processes.getByRole('row', { name: new RegExp(`^${component}\\b`) });
        await row.waitFor();
        expect(await row.textContent()).to.not.contain('No process running');
        await row.locator('time').waitFor();
      }
      const topics = page.getByRole('table').filter({ has: page.getByText('Backlog') });
      for (const topic of ['channel', 'language', 'flow', 'retriver', 'indexer']) {
        const row = topics.getByRole('row', { name: new RegExp(`^${topic}\\b`) });
        await row.waitFor();
        expect(await row.getByRole('cell').first().textContent()).to.match(/^\d+$/);
      }

      // The failing turn ends in the flow topic's dead letters (the page follows live events).
      await page.getByRole('button', { name: 'Show dead letters of flow' }).click();
      const letters = page.getByRole('region', { name: /Dead letters of flow/ });
      const row = letters.getByRole('row').filter({ hasText: 'BW_ERR_HANDLER' });
      await row.waitFor({ timeout: 90_000 });
      const id = (await row.getByRole('cell').first().textContent())!.trim();
      expect(await row.textContent()).to.match(/failed \d+ deliveries/);
      await checkA11y(page, 'operations with a dead letter');
      await screenshot(page, 'operations');

      await row.getByRole('button', { name: `Inspect ${id}` }).click();
      const json = page.getByLabel(`Dead letter ${id} as JSON`);
      await json.waitFor();
      expect(await json.textContent()).to.contain(text);
      await checkA11y(page, 'dead letter inspected');
      await screenshot(page, 'operations-dead-letter');
      expect(repliesTo(chat, `echo: ${text}`)).to.have.length(0);

      await cure();
      await row.getByRole('button', { name: `Replay ${id}` }).click();
      const dialog = page.getByRole('dialog', { name: `Replay dead letter ${id} of topic flow?` });
      await dialog.waitFor();
      await checkA11y(page, 'replay dialog');
      await dialog.getByRole('button', { name: 'Replay', exact: true }).click();
      await letters.getByRole('status').filter({ hasText: 'Replay: 1 replayed.' }).waitFor();
      await letters.getByRole('row').filter({ hasText: id }).waitFor({ state: 'detached' });
      await waitFor(() => repliesTo(chat, `echo: ${text}`).length > 0, {
        timeoutMs: 60_000,
        what: 'the replayed turn answered',
      });
      // The next turn of the chat is answered after it: the replay did not run the turn twice.
      await say(bot, chat, 'Olga', 'thanks');
      await waitFor(() => repliesTo(chat, 'echo: thanks').length > 0, {
        timeoutMs: 60_000,
        what: 'the next turn answered',
      });
      expect(repliesTo(chat, `echo: ${text}`)).to.have.length(1);
      expectNoCspViolations(page);
    } finally {
      await cure();
    }
  });

  it('when a bot’s platform fails, then the Operations page shows its replies parked behind an open breaker and a refused reply by its code, and once the platform is back they are sent and nothing waits', async () => {
    const bot = await telegramBot(service, 'Failing platform bot', ECHO_FLOW);
    const chat = 9101;
    const blocked = 9102;
    // The platform fails every send to this chat (a 502, as an outage does), and refuses those to
    // a user who blocked the bot (a 403, for good).
    service.telegram.behave((call) =>
      call.chat === String(chat)
        ? { status: 502, body: { ok: false, error_code: 502 } }
        : call.chat === String(blocked)
          ? {
              status: 403,
              body: {
                ok: false,
                error_code: 403,
                description: 'Forbidden: bot was blocked by the user',
              },
            }
          : 'ok',
    );
    try {
      const page = await service.newPage();
      await signIn(page, service.adminKey);
      await page.goto('/console/operations');
      await say(bot, blocked, 'Bo', 'hello');
      for (const text of ['one', 'two', 'three', 'four']) await say(bot, chat, 'Ada', text);
      const bots = page.getByRole('table', { name: /Bots with replies waiting/ });
      const row = bots.getByRole('row').filter({ hasText: 'Failing platform bot' });
      await row.getByText(/failing: sends paused/).waitFor({ timeout: 90_000 });
      const parked = Number(await row.getByRole('cell').nth(2).textContent());
      expect(parked).to.be.at.least(1);
      // The refused reply is counted today, by Telegram's code, with what it means.
      const refused = page.getByRole('table', { name: /Replies the platforms refused today/ });
      const refusal = refused.getByRole('row').filter({ hasText: 'Failing platform bot' });
      await refusal.getByText('the user blocked the bot', { exact: false }).waitFor();
      expect(await refusal.getByRole('cell').allTextContents()).to.deep.equal([
        'telegram',
        '403',
        '1',
        'the user blocked the bot, or the bot may not write to them',
      ]);
      await checkA11y(page, 'operations (a failing platform)');
      await screenshot(page, 'operations-failing-platform');

      service.telegram.behave(undefined);
      await waitFor(() => repliesTo(chat, 'echo: four').length > 0 || undefined, {
        timeoutMs: 120_000,
        what: 'the parked replies sent once the platform is back',
      });
      await waitFor(
        async () => {
          const { bots: rows } = await admin('GET', '/v2/ops/bots');
          const mine = rows.find((b: { app_id: string }) => b.app_id === bot.appId);
          return mine.backlog === 0 && mine.channels[0].parked === 0 ? true : undefined;
        },
        { timeoutMs: 30_000, what: 'nothing waiting for the bot' },
      );
      for (const text of ['one', 'two', 'three', 'four'])
        expect(repliesTo(chat, `echo: ${text}`), text).to.have.length(1);
      expectNoCspViolations(page);
    } finally {
      service.telegram.behave(undefined);
    }
  });

  it('when a Telegram bot with a web channel has conversations, then the Conversations page narrows them by channel and by words, and the bot writes first to one from her page', async () => {
    // The echo, and a state only a message written first leads to (its answer goes there).
    const flow = {
      ...ECHO_FLOW,
      states: {
        ...ECHO_FLOW.states,
        pickup: { wait: { store: 'when' }, next: 'booked' },
        booked: { actions: [{ send: { text: 'Pick-up booked: {{when}}' } }], next: 'listen' },
      },
    };
    const bot = await telegramBot(service, 'Conversation desk', flow);
    const web = await admin('POST', `/v2/bots/${bot.appId}/channels`, {
      type: 'web',
      details: { allowed_origins: [] },
    });
    expect(web.type).to.equal('web');
    await say(bot, 650_001, 'Ana', 'my brakes squeak');
    await say(bot, 650_002, 'Ben', 'need a new chain');
    // A web visitor through the web channel's own routes (no Origin: not a browser).
    const session: any = await (
      await fetch(`${service.url}/v2/web/${bot.appId}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json();
    const sent = await fetch(`${service.url}/v2/callback/web/${bot.appId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
      body: JSON.stringify({ client_message_id: 'm1', text: 'brakes on my e-bike' }),
    });
    expect(sent.status).to.equal(202);
    await waitFor(() => repliesTo(650_001, 'echo: my brakes squeak').length > 0, {
      timeoutMs: 60_000,
      what: 'Ana answered',
    });
    await waitFor(
      async () => (await admin('GET', `/v2/bots/${bot.appId}/conversations`)).items.length === 3,
      { timeoutMs: 60_000, what: 'three conversations' },
    );

    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${bot.appId}/conversations`);
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: /Conversations/ });
    const people = async (): Promise<string[]> =>
      (await table.getByRole('row').allTextContents()).slice(1);
    const expectRows = async (what: string, want: RegExp[]) => {
      await waitFor(
        async () => {
          const rows = await people();
          return rows.length === want.length && want.every((w) => rows.some((r) => w.test(r)));
        },
        { timeoutMs: 30_000, what },
      );
    };
    await expectRows('all three conversations', [/Ana/, /Ben/, new RegExp(session.visitor_id)]);
    await checkA11y(page, 'conversations');
    await screenshot(page, 'conversations');

    const filters = page.getByRole('search', { name: 'Filter conversations' });
    const apply = () => filters.getByRole('button', { name: 'Apply' }).click();
    await filters.getByLabel('Channel').selectOption('web');
    await apply();
    await expectRows('the web conversation only', [new RegExp(session.visitor_id)]);

    await filters.getByLabel('Channel').selectOption('');
    await filters.getByLabel('Words').fill('brakes');
    await apply();
    await expectRows('the two about brakes', [/Ana/, new RegExp(session.visitor_id)]);

    await filters.getByLabel('Channel').selectOption('telegram');
    await apply();
    await expectRows('Ana only', [/Ana/]);
    await checkA11y(page, 'conversations filtered');
    await screenshot(page, 'conversations-filtered');

    // The bot writes first to Ana from her conversation's page; Telegram gets it once.
    const { items } = await admin('GET', `/v2/bots/${bot.appId}/conversations`);
    const ana = items.find((c: { chat_id: string }) => c.chat_id === '650001');
    await page.goto(`/console/conversations/${ana.id}`);
    const write = page.getByRole('form', { name: 'Write to this user' });
    await write.getByLabel('Message').fill('Your bike is ready for pick-up.');
    await write.getByLabel('The answer goes to').selectOption('pickup');
    await write.getByRole('button', { name: 'Send' }).click();
    await write.getByRole('status').filter({ hasText: 'Accepted' }).waitFor();
    await waitFor(() => repliesTo(650_001, 'Your bike is ready for pick-up.').length > 0, {
      timeoutMs: 60_000,
      what: 'the message the bot wrote first',
    });
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await transcript.getByText('Your bike is ready for pick-up.').waitFor();
    await transcript.getByText('Bot, written first by the admin key').waitFor();
    await checkA11y(page, 'conversation, write to this user');
    await screenshot(page, 'conversation-write-first');
    expect(repliesTo(650_001, 'Your bike is ready for pick-up.')).to.have.length(1);
    // Her answer goes to the state chosen, not to the echo she was in.
    await say(bot, 650_001, 'Ana', 'at five');
    await waitFor(() => repliesTo(650_001, 'Pick-up booked: at five').length > 0, {
      timeoutMs: 60_000,
      what: 'the answer taken at the state chosen',
    });
    expect(repliesTo(650_001, 'echo: at five')).to.have.length(0);
    expectNoCspViolations(page);
  });
});
