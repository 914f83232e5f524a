/**
 * The browser tests' harness: the real service (all six components, each its own process, with a
 * stream prefix and database schema of its own; only Telegram stands in, on loopback) started once
 * for every browser test file and stopped by a root hook, and Debian's chromium driven by
 * playwright-core (the system browser, headless, nothing downloaded). `checkA11y` runs axe-core on
 * a page; `screenshot` keeps a picture of it for docs/console.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { urlWithSchema } from '../support/api.ts';
import {
  startComponent,
  stopComponent,
  type ComponentName,
  type ComponentProcess,
} from '../support/components.ts';
import { startPlatformStub, type PlatformStub } from '../support/platform-stub.ts';
import {
  connectRedis,
  createTestSchema,
  dropPrefix,
  REDIS_URL,
  ROOT,
  uniquePrefix,
  type TestSchema,
} from '../support/services.ts';

/** Debian's chromium; `scripts/lib/ensure-services.sh --tests` installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';

export interface ConsoleService {
  /** `http://127.0.0.1:<port>`, also the service's PUBLIC_BASE_URL (the console's own origin). */
  url: string;
  adminKey: string;
  telegram: PlatformStub;
  browser: Browser;
  /** A fresh browser context (its own cookies), closed by the root hook. */
  newPage(): Promise<Page>;
}

const COMPONENTS: ComponentName[] = ['api', 'channel', 'language', 'flow', 'retriver', 'indexer'];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

let shared: Promise<ConsoleService> | undefined;
const cleanups: (() => Promise<unknown>)[] = [];

async function start(): Promise<ConsoleService> {
  const telegram = await startPlatformStub();
  cleanups.push(() => telegram.close());
  const schema: TestSchema = await createTestSchema();
  cleanups.push(() => schema.drop());
  const prefix = uniquePrefix();
  const redis = connectRedis();
  cleanups.push(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  const storageDir = mkdtempSync(join(tmpdir(), 'botwire-browser-storage-'));
  cleanups.push(async () => rmSync(storageDir, { recursive: true, force: true }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminKey = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    REDIS_URL,
    DATABASE_URL: urlWithSchema(schema.schema),
    STREAM_PREFIX: prefix,
    API_PORT: String(port),
    API_HOST: '127.0.0.1',
    ADMIN_API_KEY: adminKey,
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    PUBLIC_BASE_URL: url,
    TELEGRAM_API_URL: telegram.url,
    WHATSAPP_API_URL: `${telegram.url}/v21.0`,
    STORAGE_DIR: storageDir,
    CONSUMER_LEASE_MS: '1500',
    CONSUMER_BLOCK_MS: '200',
    // The wrong-key test must not lock the other tests out; the limit has its own API test.
    ADMIN_AUTH_MAX_FAILURES: '1000',
  };
  // One at a time: six processes compiling at once on two cores take longer than in a row.
  const running: ComponentProcess[] = [];
  cleanups.push(() => Promise.all(running.map((c) => stopComponent(c, 'SIGKILL'))));
  for (const component of COMPONENTS) {
    running.push(
      await startComponent(component, `browser-${component}-${port}`, env, { timeoutMs: 60_000 }),
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root (CI containers) cannot use chromium's sandbox.
    args: ['--no-sandbox'],
  });
  cleanups.push(() => browser.close());
  const contexts: BrowserContext[] = [];
  return {
    url,
    adminKey,
    telegram,
    browser,
    async newPage() {
      const context = await browser.newContext({ baseURL: url });
      contexts.push(context);
      const page = await context.newPage();
      watchCsp(page);
      return page;
    },
  };
}

/**
 * The service for the browser tests, started on first use and shared by every browser test file.
 * Call it from a `before` hook with a generous timeout (six processes start one after another).
 */
export function consoleService(): Promise<ConsoleService> {
  shared ??= start();
  return shared;
}

// A root hook: runs once after every test file, whichever of them started the service.
after(async function () {
  this.timeout(60_000);
  if (shared === undefined) return;
  await shared.catch(() => undefined);
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch {
      // Each step is tried; one failing must not leave the others running.
    }
  }
});

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

/** Signs in through the sign-in page, as an operator does. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/console/');
  await page.getByLabel('Admin key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
}
