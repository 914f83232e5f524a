/**
 * The browser tests' harness: the real service and Debian's chromium (./service.ts), started once
 * for every browser test file and stopped by a root hook. `checkA11y` runs axe-core on a page;
 * `screenshot` keeps a picture of it for docs/console.md.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ROOT } from '../support/services.ts';
import { startConsoleService, type ConsoleService, type RunningConsole } from './service.ts';

export { CHROMIUM, signIn, type ConsoleService } from './service.ts';

let shared: Promise<RunningConsole> | undefined;

/**
 * The service for the browser tests, started on first use and shared by every browser test file.
 * Call it from a `before` hook with a generous timeout (six processes start one after another).
 */
export async function consoleService(): Promise<ConsoleService> {
  shared ??= startConsoleService({ onPage: watchCsp });
  return (await shared).service;
}

// A root hook: runs once after every test file, whichever of them started the service.
after(async function () {
  this.timeout(60_000);
  if (shared === undefined) return;
  const running = await shared.catch(() => undefined);
  await running?.stop();
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
