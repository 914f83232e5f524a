/**
 * The browser tests' harness: the real service and Debian's chromium (./service.ts), started once
 * for every browser test file and stopped by a root hook. `checkA11y` runs axe-core on a page;
 * `screenshot` keeps a picture of it for docs/console.md. The rest sets a test up as a person
 * would not need to: admin API calls, accounts, sessions and Telegram bots and messages.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { TELEGRAM_TOKEN } from '../support/api.ts';
import { ROOT } from '../support/services.ts';
import { startConsoleService, type ConsoleService, type RunningConsole } from './service.ts';

export { CHROMIUM, signIn, signInWithPassword, type ConsoleService } from './service.ts';

let shared: Promise<RunningConsole> | undefined;

/** Set in mocha's workers when files run in parallel (TEST_JOBS above 1, scripts/test.sh). */
const IN_PARALLEL_WORKER = process.env.MOCHA_WORKER_ID !== undefined;

/**
 * The service for the browser tests, started on first use and shared by the browser test files
 * that run in this process. Call it from a `before` hook with a generous timeout (six processes
 * start one after another), and `releaseConsoleService` from the file's `after` hook.
 */
export async function consoleService(): Promise<ConsoleService> {
  shared ??= startConsoleService({ onPage: watchCsp });
  return (await shared).service;
}

async function stopShared(): Promise<void> {
  if (shared === undefined) return;
  const running = await shared.catch(() => undefined);
  shared = undefined;
  await running?.stop();
}

// Files one after another in one process: a root hook, run once after every test file, stops
// the service whichever file started it.
if (!IN_PARALLEL_WORKER) {
  after(async function () {
    this.timeout(60_000);
    await stopShared();
  });
}

/**
 * A browser test file's `after` hook. In a parallel worker the root hook above cannot stop the
 * service (a worker runs many files but evaluates this module once, so the hook would belong to
 * its first file alone): each file stops it, and the worker's next browser file starts its own.
 * Files one after another share one service, and this does nothing.
 */
export async function releaseConsoleService(this: Mocha.Context): Promise<void> {
  if (!IN_PARALLEL_WORKER) return;
  this.timeout(60_000);
  await stopShared();
}

const cspViolations = new WeakMap<Page, string[]>();

/** Records the page's Content-Security-Policy refusals (the console must cause none). */
function watchCsp(page: Page): void {
  const seen: string[] = [];
  cspViolations.set(page, seen);
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) seen.push(message.text());
  });
}

/** Fails when the console broke its own Content-Security-Policy on `page`. */
export function expectNoCspViolations(page: Page): void {
  expect(cspViolations.get(page) ?? []).to.deep.equal([]);
}

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core on the page as it is and fails on serious or critical violations, naming each
 * rule and where it failed. axe is evaluated through the DevTools protocol, which the page's CSP
 * does not govern, so the CSP stays on for the test.
 */
export async function checkA11y(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // axe.run() checks the whole document.
    const axe = (globalThis as unknown as { axe: { run: () => Promise<any> } }).axe;
    const result = await axe.run();
    return (result.violations as any[]).map((v) => ({
      id: String(v.id),
      impact: String(v.impact),
      help: String(v.help),
      targets: (v.nodes as any[]).map((n) => JSON.stringify(n.target)).slice(0, 3),
    }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad, `${what}: accessibility violations`).to.deep.equal([]);
}

/**
 * Saves a full-page screenshot as `docs/console/<name>.png` when CONSOLE_SCREENSHOTS=1 (so
 * docs/console.md shows the current pages), else in a temporary folder.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir =
    process.env.CONSOLE_SCREENSHOTS === '1'
      ? join(ROOT, 'docs', 'console')
      : join(screenshotTemp(), 'console');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

let temp: string | undefined;
function screenshotTemp(): string {
  temp ??= mkdtempSync(join(tmpdir(), 'botwire-screens-'));
  return temp;
}

/**
 * Calls the admin API of `service` (with the admin key unless `headers` say otherwise, such as
 * another account's session); the JSON answer, or an error naming the call and its status.
 */
export async function apiCall(
  service: ConsoleService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${service.adminKey}` },
): Promise<any> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: any = await response.json().catch(() => undefined);
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * An account made through the admin API as an owner would, with a unique email and password;
 * an agent is assigned to `bots`.
 */
export async function makeAccount(
  service: ConsoleService,
  { name, role = 'agent', bots = [] }: { name: string; role?: string; bots?: string[] },
): Promise<{ email: string; password: string }> {
  const email = `${name.toLowerCase()}-${randomBytes(3).toString('hex')}@example.test`;
  const password = `password of ${name} ${randomBytes(4).toString('hex')}`;
  await apiCall(service, 'POST', '/v2/accounts', { email, name, role, password, bots });
  return { email, password };
}

/** A console session of an account, as headers for calls made outside the browser. */
export async function sessionOf(
  service: ConsoleService,
  { email, password }: { email: string; password: string },
): Promise<Record<string, string>> {
  const response = await fetch(`${service.url}/v2/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.url },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status).to.equal(204);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { cookie, origin: service.url };
}

/** A Telegram bot of `flow` with its webhook registered: its id and webhook secret. */
export async function telegramBot(
  service: ConsoleService,
  name: string,
  flow: unknown,
): Promise<TelegramBot> {
  const created = await apiCall(service, 'POST', '/v2/bots', {
    name,
    flow,
    channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
  });
  const appId: string = created.app_id;
  await apiCall(service, 'POST', `/v2/bots/${appId}/channels/${created.channels[0].id}/webhook`);
  const hook = service.telegram.calls.findLast(
    (c) => c.method === 'setWebhook' && String(c.body.url).endsWith(appId),
  );
  return { appId, secret: String(hook?.body.secret_token) };
}

export interface TelegramBot {
  appId: string;
  secret: string;
}

// Update ids count up across every browser test file: the service shares one Telegram stand-in.
let telegramUpdate = 7_000;

/** A person's text on Telegram, posted to the bot's webhook as Telegram does. */
export async function telegramText(
  service: ConsoleService,
  bot: TelegramBot,
  { chat, from, text }: { chat: number; from: string; text: string },
): Promise<void> {
  telegramUpdate += 1;
  const response = await fetch(`${service.url}/v2/callback/telegram/${bot.appId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-telegram-bot-api-secret-token': bot.secret,
    },
    body: JSON.stringify({
      update_id: telegramUpdate,
      message: {
        message_id: telegramUpdate,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chat, type: 'private' },
        from: { id: chat, first_name: from },
        text,
      },
    }),
  });
  expect(response.status).to.equal(200);
}

/** The Telegram messages delivered to `chat` with exactly `text`. */
export function telegramDelivered(service: ConsoleService, chat: number, text: string) {
  return service.telegram.calls.filter(
    (c) => c.chat === String(chat) && c.text === text && c.delivered,
  );
}

/**
 * A bot on a WhatsApp number of the stand-in platform, whose Business Account `account` lists
 * `templates` (synced by the caller, from the API or the bot's page).
 */
export async function whatsappBot(
  service: ConsoleService,
  bot: {
    name: string;
    flow: Record<string, unknown>;
    number: string;
    account: string;
    templates: Record<string, unknown>[];
  },
): Promise<string> {
  const created = await apiCall(service, 'POST', '/v2/bots', {
    name: bot.name,
    flow: bot.flow,
    channel: {
      type: 'whatsapp',
      details: {
        phone_number_id: bot.number,
        access_token: 'wa-token',
        business_account_id: bot.account,
      },
    },
  });
  service.telegram.templates.set(bot.account, bot.templates);
  return created.app_id as string;
}

/** A day passes for bot `appId`'s users: their last messages are 25 hours old, their windows closed. */
export async function closeWhatsAppWindows(service: ConsoleService, appId: string): Promise<void> {
  const { db } = service;
  await db('messages')
    .whereIn('conversation_id', db('conversations').where({ app_id: appId }).select('id'))
    .andWhere({ direction: 'in' })
    .update({ created_at: db.raw(`now() - interval '25 hours'`) });
}
