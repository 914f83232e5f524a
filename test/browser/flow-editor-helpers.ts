/**
 * What the browser tests of the flow editor share: finding the editor's panels and the test chat
 * as a person does, adding, selecting and deleting states, validating and publishing.
 */
import type { Locator, Page } from 'playwright-core';
import { details } from './flow-editor-locators.ts';
import { checkA11y, screenshot } from './support.ts';

/** Long enough for a turn through six processes on a loaded 2-core machine. */
export const TURN_MS = 60_000;

export { details };

/** Adds a state through the state list's form; the editor selects it. */
export async function addState(page: Page, name: string): Promise<void> {
  await page.getByLabel('New state name').fill(name);
  await page.getByRole('button', { name: 'Add state' }).click();
  await details(page)
    .getByRole('heading', { name: `State ${name}` })
    .waitFor();
}

/** Selects a state by clicking its node in the graph, the whole graph in view first. */
export async function clickNode(page: Page, name: string): Promise<void> {
  const graph = page.getByRole('region', { name: /Flow graph/ });
  // A state just added may sit outside the view, as it would for a person, who fits it first.
  await graph.getByRole('button', { name: /fit view/i }).click();
  await graph.getByLabel(`State ${name}`, { exact: true }).click();
  await details(page)
    .getByRole('heading', { name: `State ${name}` })
    .waitFor();
}

/** Deletes the selected state after the confirmation. */
export async function deleteState(page: Page, name: string): Promise<void> {
  await clickNode(page, name);
  await details(page)
    .getByRole('button', { name: `Delete state ${name}` })
    .click();
  await page
    .getByRole('dialog', { name: `Delete state ${name}?` })
    .getByRole('button', { name: `Delete ${name}` })
    .click();
  await page
    .getByRole('navigation', { name: /States/ })
    .getByRole('button', { name, exact: true })
    .waitFor({ state: 'detached' });
}

/** The selected state sends `text` with reply buttons `[id, title]`. */
export async function sendWithButtons(page: Page, text: string, buttons: [string, string][]) {
  const panel = details(page);
  await panel.getByLabel('New action').selectOption({ label: 'Send a message' });
  await panel.getByRole('button', { name: 'Add action' }).click();
  await panel.getByLabel('Message text', { exact: true }).fill(text);
  if (buttons.length === 0) return;
  // Buttons start as two (send-editor.tsx).
  await panel.getByLabel('Options to press').selectOption({ label: 'Buttons (up to 3)' });
  for (const [i, [id, title]] of buttons.entries()) {
    if (i >= 2) await panel.getByRole('button', { name: 'Add button' }).click();
    await panel.getByLabel(`Button ${i + 1} title`).fill(title);
    await panel.getByLabel(`Button ${i + 1} id`).fill(id);
  }
  if (buttons.length === 1) await panel.getByRole('button', { name: 'Remove button 2' }).click();
}

/** Waits until validation has answered "Valid." for what is on screen. */
export async function expectValid(page: Page): Promise<void> {
  await page
    .getByRole('toolbar', { name: 'Draft and publish' })
    .getByRole('status')
    .filter({ hasText: /^Valid/ })
    .waitFor();
}

/** Publish, read the impact the dialog shows, confirm; returns the dialog's text. */
export async function publish(page: Page, note: string, shot?: string): Promise<string> {
  const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
  await bar.getByRole('button', { name: 'Publish' }).click();
  const dialog = page.getByRole('dialog', { name: 'Publish the draft?' });
  await dialog.waitFor();
  const said = await dialog.innerText();
  if (shot !== undefined) {
    await checkA11y(page, 'publish dialog');
    await screenshot(page, shot);
  }
  await dialog.getByLabel('Note (optional)').fill(note);
  await dialog.getByRole('button', { name: 'Publish' }).click();
  await bar
    .getByRole('status')
    .filter({ hasText: /Published version \d+/ })
    .waitFor();
  return said;
}

/** The test chat beside the editor. */
export const chatPanel = (page: Page): Locator =>
  page.getByRole('complementary', { name: 'Test chat' });

export async function say(chat: Locator, text: string): Promise<void> {
  await chat.getByLabel('Message', { exact: true }).fill(text);
  await chat.getByRole('button', { name: 'Send' }).click();
}

/** A line of the chat's log spoken by the bot that holds `text`. */
export const botLine = (chat: Locator, text: string): Locator =>
  chat.getByRole('log').getByRole('listitem').filter({ hasText: /^Bot/ }).filter({ hasText: text });
