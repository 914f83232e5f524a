/**
 * The real service (all six components, each its own process, with a stream prefix and database
 * schema of its own; only Telegram stands in, on loopback) and Debian's chromium driven by
 * playwright-core (the system browser, headless, nothing downloaded). No mocha here: the browser
 * tests (./support.ts) and bench/console start it alike.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Knex } from '../../src/shared/db.ts';
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
  uniquePrefix,
  urlWithSchema,
  type TestSchema,
} from '../support/services.ts';

/** Debian's chromium; `scripts/lib/ensure-services.sh --tests` installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';

export interface ConsoleService {
  /** `http://127.0.0.1:<port>`, also the service's PUBLIC_BASE_URL (the console's own origin). */
  url: string;
  adminKey: string;
  /**
   * The service's own database schema, open for a test to stage what a person could not (a bug,
   * the passing of a day); `stop` closes it and drops the schema.
   */
  db: Knex;
  telegram: PlatformStub;
  browser: Browser;
  /** A fresh browser context (its own cookies), closed by `stop`. */
  newPage(): Promise<Page>;
}

/** The service and how to stop it. */
export interface RunningConsole {
  service: ConsoleService;
  /** Stops the browser and every process, drops the schema and the keys; each step is tried. */
  stop(): Promise<void>;
}

const COMPONENTS: ComponentName[] = ['api', 'channel', 'language', 'flow', 'retriver', 'indexer'];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * Starts the service (six processes, one after another) and the browser. The console is served
 * from its build (`console/dist`), which the caller makes sure of (`scripts/test.sh` does).
 * @param options.onPage called with every page `newPage` opens (the tests watch its CSP).
 */
export async function startConsoleService(
  options: { onPage?: (page: Page) => void } = {},
): Promise<RunningConsole> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // Each step is tried; one failing must not leave the others running.
      }
    }
  };
  try {
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
    const service: ConsoleService = {
      url,
      adminKey,
      db: schema.db,
      telegram,
      browser,
      async newPage() {
        // Less motion: the view jumps to a selected state rather than gliding there, so a click
        // that follows a selection lands where the state is (a glide slowed by a busy machine
        // could move it away under the pointer).
        const context = await browser.newContext({ baseURL: url, reducedMotion: 'reduce' });
        contexts.push(context);
        const page = await context.newPage();
        options.onPage?.(page);
        return page;
      },
    };
    return { service, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Signs in through the sign-in page, as an operator does. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/console/');
  await page.getByLabel('Admin key').fill(key);
  await page.getByRole('button', { name: 'Sign in with the admin key' }).click();
  await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
}

/** Signs in through the sign-in page with an account's email and password, in a new browser context. */
export async function signInWithPassword(
  service: ConsoleService,
  account: { email: string; password: string },
): Promise<Page> {
  const page = await service.newPage();
  await page.goto('/console/');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
  return page;
}
