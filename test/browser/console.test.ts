/**
 * The console in a real browser (Debian's chromium) against the real service: signing in and out,
 * what a signed-out browser and a cross-origin page can do with the admin API, and the Bots pages,
 * with axe-core on every page and a screenshot of each.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { openApiDocument } from '../../src/api/openapi.ts';
import { TELEGRAM_TOKEN } from '../support/api.ts';
import { waitFor } from '../support/services.ts';
import {
  checkA11y,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  screenshot,
  signIn,
  type ConsoleService,
} from './support.ts';

/** Every admin route of the OpenAPI description, its path parameters filled with a made-up id. */
function adminRoutes(): { method: string; path: string }[] {
  const paths = openApiDocument().paths as Record<
    string,
    Record<string, { security?: Record<string, unknown>[] }>
  >;
  // Admin routes are those the bearer key opens (web visitor routes use their own tokens).
  const isAdmin = (security?: Record<string, unknown>[]) =>
    security?.some((scheme) => 'bearer' in scheme) === true;
  return Object.entries(paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => isAdmin(operation.security) || path === '/v2/session')
      .filter(([method]) => !(path === '/v2/session' && method !== 'get'))
      .map(([method]) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000'),
      })),
  );
}

describe('console in a browser', function () {
  // Six processes start once for every browser test file; a loaded 2-core machine is slow.
  this.timeout(120_000);
  let service: ConsoleService;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const botNames = async (): Promise<string[]> => {
    const page = (await (await api('GET', '/v2/bots?limit=100')).json()) as any;
    return page.items.map((b: { name: string }) => b.name);
  };

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when a wrong key is given, then the sign-in page says so; with the right key, then the Bots page opens; signing out returns to sign-in', async () => {
    const page = await service.newPage();
    await page.goto('/console/bots');
    // Signed out: sent to the sign-in page.
    await page.getByLabel('Admin key').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/console/sign-in');
    await checkA11y(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Admin key').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in with the admin key' }).click();
    await page.getByRole('alert').filter({ hasText: 'not the admin key' }).waitFor();
    await checkA11y(page, 'sign-in with an error');

    await page.getByLabel('Admin key').fill(service.adminKey);
    await page.getByRole('button', { name: 'Sign in with the admin key' }).click();
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    // Back where the operator was going.
    expect(new URL(page.url()).pathname).to.equal('/console/bots');
    const cookie = (await page.context().cookies()).find((c) => c.name === 'bw_session');
    expect(cookie?.httpOnly).to.equal(true);
    expect(cookie?.sameSite).to.equal('Strict');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin key').waitFor();
    expect((await page.context().cookies()).map((c) => c.name)).to.not.include('bw_session');
    // The session is gone on the server too: the old cookie, put back, opens nothing.
    await page.context().addCookies([cookie!]);
    const status = await page.evaluate(async () => (await fetch('/v2/bots')).status);
    expect(status).to.equal(401);
    expectNoCspViolations(page);
  });

  it('when signed out, then every admin API route the console could call answers 401', async () => {
    const page = await service.newPage();
    await page.goto('/console/sign-in');
    const routes = adminRoutes();
    expect(routes.length).to.be.greaterThan(10);
    const answers = await page.evaluate(async (list) => {
      const out: string[] = [];
      for (const { method, path } of list) {
        const response = await fetch(path, {
          method,
          headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
          body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
        });
        out.push(`${method} ${path} ${response.status}`);
      }
      return out;
    }, routes);
    expect(answers.filter((a) => !a.endsWith(' 401'))).to.deep.equal([]);
  });

  it('when a page of another origin on the same site posts to the admin API with the cookie, then 403 and nothing is created', async () => {
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    // Another port of 127.0.0.1: a different origin but the same site, so the SameSite=Strict
    // cookie is sent along; only the Origin check stands in the way. A multipart body is a
    // "simple" request: the browser sends it without asking the service first.
    const attacker: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>elsewhere</title><p>elsewhere</p>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (attacker.address() as { port: number }).port;
      await page.goto(`http://127.0.0.1:${port}/`);
      const refused = page.waitForResponse((r) => r.url().endsWith('/v2/bots'));
      await page.evaluate(async (target) => {
        const form = new FormData();
        form.append('name', 'csrf');
        await fetch(`${target}/v2/bots`, {
          method: 'POST',
          mode: 'no-cors',
          credentials: 'include',
          body: form,
        });
      }, service.url);
      const response = await refused;
      // 403, not 401: the cookie arrived (without it the guard answers 401) and the Origin check
      // refused the request. An opaque (no-cors) answer's body cannot be read; the API test
      // asserts its code, BW_ERR_ORIGIN_REFUSED.
      expect(response.status()).to.equal(403);
      expect(await botNames()).to.not.include('csrf');
    } finally {
      await new Promise((resolve) => attacker.close(resolve));
    }
  });

  it('when an operator creates, renames, deactivates, registers the webhook of and deletes a bot through the pages, then the API shows each change', async () => {
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await checkA11y(page, 'bots (empty)');

    await page.getByLabel('Name', { exact: true }).fill('Bike shop');
    await page.getByLabel('Channel type').selectOption('telegram');
    await page.getByLabel('Bot token').fill(TELEGRAM_TOKEN);
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('heading', { name: 'Bike shop', level: 1 }).waitFor();
    expect(await botNames()).to.include('Bike shop');
    const appId = new URL(page.url()).pathname.split('/').pop()!;
    // No flow was sent: the server's default flow.
    const created = (await (await api('GET', `/v2/bots/${appId}`)).json()) as any;
    expect(created.flow.start).to.be.a('string');

    await page.getByLabel('Name', { exact: true }).fill('Bike shop bot');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'Bike shop bot', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('button', { name: 'Activate', exact: true }).waitFor();
    const edited = (await (await api('GET', `/v2/bots/${appId}`)).json()) as any;
    expect([edited.name, edited.active]).to.deep.equal(['Bike shop bot', false]);

    // Language and handoff: a refused value is explained at its field, in words.
    await page.getByLabel('Bot language').fill('de');
    await page.getByLabel('Words that ask for a person').fill('agent\nhuman please');
    await page.getByLabel('Seconds a handoff waits for a person').fill('5');
    const save = page.getByRole('button', { name: 'Save language and handoff' });
    await save.click();
    await page.getByText('A whole number from 10 to 604800.').waitFor();
    await page.getByLabel('Seconds a handoff waits for a person').fill('120');
    await save.click();
    await page.getByRole('form', { name: 'Language and handoff' }).getByText('Saved.').waitFor();
    const set = (await (await api('GET', `/v2/bots/${appId}`)).json()) as any;
    expect([set.language, set.handoff]).to.deep.equal([
      'de',
      { keywords: ['agent', 'human please'], timeout_s: 120 },
    ]);

    // The stub is shared by every browser test file: look only at the calls this click made.
    const callsBefore = service.telegram.calls.length;
    await page.getByRole('button', { name: 'Register Telegram webhook' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook registered' }).waitFor();
    const setWebhook = service.telegram.calls
      .slice(callsBefore)
      .find((c) => c.method === 'setWebhook');
    expect(setWebhook?.body.url).to.equal(`${service.url}/v2/callback/telegram/${appId}`);
    await checkA11y(page, 'bot');
    await screenshot(page, 'bot');

    await page.getByRole('button', { name: 'Delete bot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Bike shop bot?' });
    await dialog.waitFor();
    await checkA11y(page, 'delete dialog');
    await screenshot(page, 'delete-bot');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await botNames()).to.include('Bike shop bot');
    await page.getByRole('button', { name: 'Delete bot' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await waitFor(async () => !(await botNames()).includes('Bike shop bot'), {
      what: 'the bot deleted',
    });
    expectNoCspViolations(page);
  });

  it("when a channel's credentials do not open with the service's key, then the bot page says so and offers only the channel's removal", async () => {
    const created = await api('POST', '/v2/bots', {
      name: 'Sealed shop',
      channel: { type: 'whatsapp', details: { phone_number_id: '5550199', access_token: 'x' } },
    });
    expect(created.status).to.equal(201);
    const appId = ((await created.json()) as { app_id: string }).app_id;
    // As if sealed with a key the service no longer has (docs/security.md).
    await service
      .db('channels')
      .where({ app_id: appId })
      .update({ credentials: 'v1.sealed-elsewhere' });
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${appId}`);
    await page.getByRole('heading', { name: 'Sealed shop', level: 1 }).waitFor();
    const channels = page.getByRole('region', { name: 'Channels' });
    await channels.getByRole('alert').getByText('do not open').waitFor();
    expect(await channels.getByText('messaging limit').count()).to.equal(0);
    expect(await channels.getByRole('form', { name: 'Messaging limit' }).count()).to.equal(0);
    await channels.getByRole('button', { name: /Remove/ }).waitFor();
    await screenshot(page, 'bot-channel-unreadable');
  });

  it('when the bots list, a bot and the Knowledge and Operations sections are shown, then they pass axe', async () => {
    const created = await api('POST', '/v2/bots', {
      name: 'Support desk',
      channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
    });
    expect(created.status).to.equal(201);
    const page: Page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.getByRole('link', { name: 'Support desk' }).waitFor();
    await checkA11y(page, 'bots');
    await screenshot(page, 'bots');
    await page.getByRole('link', { name: 'Support desk' }).click();
    await page.getByRole('heading', { name: 'Support desk', level: 1 }).waitFor();
    await checkA11y(page, 'bot');
    for (const section of ['Knowledge', 'Operations']) {
      await page.getByRole('navigation').getByRole('link', { name: section }).click();
      await page.getByRole('heading', { name: section, level: 1 }).waitFor();
      await checkA11y(page, section);
    }
    expectNoCspViolations(page);
  });
});
