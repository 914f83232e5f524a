/**
 * The web channel's widget in a real browser: a plain HTML page of another origin embeds it with
 * the snippet the admin API gives, and a visitor chats with the bot through the real service; a
 * page of an origin the channel does not list is refused, and the widget says it cannot chat.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { waitFor } from '../support/services.ts';
import { TELEGRAM_TOKEN } from '../support/api.ts';
import { shopFlow } from '../support/flows.ts';
import {
  checkA11y,
  consoleService,
  releaseConsoleService,
  screenshot,
  signIn,
  type ConsoleService,
} from './support.ts';

const SHOP_FLOW = shopFlow();

/** A shop's page on its own port of 127.0.0.1 (another origin than the service). */
async function shopPage(html: () => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(html());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, server };
}

function pageWith(snippet: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bike shop</title></head>
<body><main><h1>Bike shop</h1><p>Repairs and parts.</p></main>${snippet}</body></html>`;
}

describe('web widget in a browser', function () {
  this.timeout(120_000);
  let service: ConsoleService;
  const servers: Server[] = [];
  let snippet = '';
  let allowed = '';
  let refused = '';

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
    const shop = await shopPage(() => pageWith(snippet));
    const other = await shopPage(() => pageWith(snippet));
    servers.push(shop.server, other.server);
    allowed = shop.origin;
    refused = other.origin;
    const created = await fetch(`${service.url}/v2/bots`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${service.adminKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        name: 'Widget shop',
        flow: SHOP_FLOW,
        channel: { type: 'web', details: { allowed_origins: [allowed] } },
      }),
    });
    expect(created.status).to.equal(201);
    snippet = ((await created.json()) as any).channels[0].widget_snippet;
  });

  after(releaseConsoleService);

  after(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  const openChat = async (page: Page) => {
    await page.getByRole('button', { name: 'Open chat' }).click();
    const dialog = page.getByRole('dialog', { name: 'Chat' });
    await dialog.waitFor();
    return dialog;
  };

  it('when a visitor on a page of an allowed origin opens the bubble, writes and presses a button, then the bot answers each in the chat', async () => {
    const page = await service.newPage();
    await page.goto(`${allowed}/`);
    await page.getByRole('heading', { name: 'Bike shop' }).waitFor();
    const dialog = await openChat(page);
    await dialog.getByRole('textbox', { name: 'Message' }).fill('hello');
    await dialog.getByRole('button', { name: 'Send' }).click();
    const log = dialog.getByRole('log', { name: 'Messages' });
    await log.getByText('hello', { exact: true }).waitFor({ timeout: 60_000 });
    await log.getByText('Hi! What do you need?').waitFor({ timeout: 60_000 });
    await checkA11y(page, 'widget with a reply');
    await screenshot(page, 'widget');
    await log.getByRole('button', { name: 'Opening hours' }).click();
    await log.getByText('We are open 9 to 5.').waitFor({ timeout: 60_000 });
    // The press is shown by the button's title, never its id.
    await log.getByText('→ Opening hours').waitFor();
    expect(await log.getByText('→ hours', { exact: true }).count()).to.equal(0);
    // Each message once: the visitor's two, the bot's two.
    await waitFor(async () => (await log.locator(':scope > *').count()) === 4, {
      what: 'four messages in the chat',
    });
    expect(await log.getByText('We are open 9 to 5.').count()).to.equal(1);
    expect(await dialog.getByRole('status').textContent()).to.equal('');
  });

  it('when a new visitor sends a message before their session is made, then the stream and the message share one visitor and the answer arrives', async () => {
    const page = await service.newPage();
    // The service's first answer on the sessions route is held back until the message has been
    // submitted, so the stream and the message both ask for a session while none exists.
    let sessionsAsked = 0;
    let release: () => void = () => {};
    const submitted = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/sessions', async (route) => {
      sessionsAsked += 1;
      await submitted;
      await route.continue();
    });
    await page.goto(`${allowed}/`);
    const dialog = await openChat(page);
    await dialog.getByRole('textbox', { name: 'Message' }).fill('hello');
    await dialog.getByRole('button', { name: 'Send' }).click();
    release();
    const log = dialog.getByRole('log', { name: 'Messages' });
    await log.getByText('Hi! What do you need?').waitFor({ timeout: 60_000 });
    await log.getByText('hello', { exact: true }).waitFor();
    expect(sessionsAsked).to.equal(1);
  });

  it('when the page is of an origin the web channel does not list, then the service refuses it and the widget says the chat cannot be reached', async () => {
    const page = await service.newPage();
    await page.goto(`${refused}/`);
    const dialog = await openChat(page);
    await dialog
      .getByRole('status')
      .filter({ hasText: 'The chat cannot be reached right now.' })
      .waitFor({ timeout: 30_000 });
    await checkA11y(page, 'widget refused');
    await screenshot(page, 'widget-refused');
    // What the browser was told (its CORS refusal hides the body from the page).
    const appId = /data-app-id="([^"]+)"/.exec(snippet)![1];
    const answer = await fetch(`${service.url}/v2/web/${appId}/sessions`, {
      method: 'POST',
      headers: { origin: refused, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answer.status).to.equal(403);
    expect(((await answer.json()) as any).error.code).to.equal('BW_ERR_ORIGIN_REFUSED');
  });

  it('when an operator adds a web channel to a Telegram bot in the console and pastes its snippet into a page of the origin it allowed, then the widget there chats with the bot', async () => {
    let added = '';
    const page3 = await shopPage(() => pageWith(added));
    servers.push(page3.server);
    const created = await fetch(`${service.url}/v2/bots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Telegram shop',
        flow: SHOP_FLOW,
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      }),
    });
    const appId = ((await created.json()) as any).app_id as string;

    const console = await service.newPage();
    await signIn(console, service.adminKey);
    await console.goto(`/console/bots/${appId}`);
    const form = console.getByRole('form', { name: 'Add a channel' });
    await form.getByLabel('Channel type').selectOption({ label: 'Web chat' });
    // A path is no origin: refused at the field, in words.
    await form.getByLabel('Allowed origins').fill(`${page3.origin}/shop`);
    await form.getByRole('button', { name: 'Add channel' }).click();
    await form.getByText(/scheme, host and port with no path/).waitFor();
    await form.getByLabel('Allowed origins').fill(page3.origin);
    await form.getByRole('button', { name: 'Add channel' }).click();
    const pasted = console.getByLabel('Paste into your website’s pages');
    await pasted.waitFor();
    added = await pasted.inputValue();
    expect(added).to.include(`data-app-id="${appId}"`);
    await checkA11y(console, 'bot with a web channel');
    await screenshot(console, 'bot-channels');

    const visitor = await service.newPage();
    await visitor.goto(`${page3.origin}/`);
    const dialog = await openChat(visitor);
    await dialog.getByRole('textbox', { name: 'Message' }).fill('hello');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await dialog
      .getByRole('log', { name: 'Messages' })
      .getByText('Hi! What do you need?')
      .waitFor({ timeout: 60_000 });
  });
});
