/**
 * The flow editor opening in Debian's chromium against the real service: for each run, a fresh
 * browser context (nothing cached, as on a first visit) signs in, then the clock starts as it
 * navigates to `/console/bots/<app_id>/flow` and stops when the graph is interactive: a state's
 * node has been clicked (playwright waits until it is rendered, visible, stable and receives
 * events) and the editor shows that state's panel.
 */
import { performance } from 'node:perf_hooks';
import { signIn, type ConsoleService } from '../../test/browser/service.ts';

/**
 * A flow of `states` states that the editor lays out as a long graph: a chain of states that
 * each send a message, with a wait every fifth state, the last one back to the first.
 */
export function chainFlow(states: number): { version: 1; start: string; states: object } {
  const name = (i: number): string => `s${String(i).padStart(3, '0')}`;
  const all: Record<string, object> = {};
  for (let i = 0; i < states; i += 1) {
    const next = name((i + 1) % states);
    all[name(i)] =
      i % 5 === 4
        ? { wait: { store: `answer_${i}` }, next }
        : { actions: [{ send: { text: `Step ${i}` } }], next };
  }
  return { version: 1, start: name(0), states: all };
}

/**
 * The state a run clicks: the second of the chain, not the start (which may be selected), and
 * drawn at once: a large flow opens fitted to its first rows (flow-canvas.tsx), and only visible
 * nodes are rendered.
 */
export const CLICKED_STATE = 's001';

/** Creates a bot with `flow` (and a web channel) through the admin API; answers its app id. */
export async function createBot(
  service: ConsoleService,
  name: string,
  flow: object,
): Promise<string> {
  const response = await fetch(`${service.url}/v2/bots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminKey}`, 'content-type': 'application/json' },
    // A web channel: a bot needs one, and it calls no platform.
    body: JSON.stringify({
      name,
      flow,
      channel: { type: 'web', details: { allowed_origins: [] } },
    }),
  });
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(`POST /v2/bots answered ${response.status}: ${await response.text()}`);
  }
  return ((await response.json()) as { app_id: string }).app_id;
}

/** One opening of the editor on bot `appId`: ms from navigation to interactive. */
export async function openEditor(service: ConsoleService, appId: string): Promise<number> {
  const page = await service.newPage();
  try {
    await signIn(page, service.adminKey);
    const target = CLICKED_STATE;
    const started = performance.now();
    await page.goto(`/console/bots/${appId}/flow`);
    await page
      .locator('.react-flow__node')
      .filter({ has: page.locator('.state-node-name', { hasText: new RegExp(`^${target}$`) }) })
      .click({ timeout: 120_000 });
    await page.getByRole('heading', { name: `State ${target}`, level: 2 }).waitFor();
    return performance.now() - started;
  } finally {
    await page.context().close();
  }
}

/** What the page's code below uses of the browser. */
interface BrowserGlobals {
  document: { querySelector(selector: string): { textContent: string | null } | null };
  requestAnimationFrame(callback: (time: number) => void): number;
}

/**
 * Edits of a state's message text in the editor on bot `appId`, `edits` times: for each, ms from
 * the field's input event to the frame in which the state's node on the canvas shows the new
 * text (React's update, the graph's layout and the paint), measured in the page.
 */
export async function editTimes(
  service: ConsoleService,
  appId: string,
  edits: number,
): Promise<number[]> {
  const page = await service.newPage();
  try {
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${appId}/flow`);
    await page
      .locator('.react-flow__node')
      .filter({
        has: page.locator('.state-node-name', { hasText: new RegExp(`^${CLICKED_STATE}$`) }),
      })
      .click({ timeout: 120_000 });
    const field = page
      .getByRole('complementary', { name: 'Details' })
      .getByLabel('Message text', { exact: true });
    const times: number[] = [];
    for (let i = 0; i < edits; i += 1) {
      times.push(
        await field.evaluate(
          async (element, { text, state }) => {
            // This runs in the page (its DOM, not Node's types), and defines no named function:
            // the bench's loader would wrap one in a helper the page does not have.
            const browser = globalThis as unknown as BrowserGlobals;
            const started = performance.now();
            // React tracks the value it set: the prototype's setter makes the change its own.
            Reflect.set(Object.getPrototypeOf(element) as object, 'value', text, element);
            (element as unknown as { dispatchEvent(e: Event): void }).dispatchEvent(
              new Event('input', { bubbles: true }),
            );
            for (;;) {
              await new Promise((resolve) => browser.requestAnimationFrame(resolve));
              const node = browser.document.querySelector(`.react-flow__node[data-id="${state}"]`);
              if (node?.textContent?.includes(text)) return performance.now() - started;
            }
          },
          { text: `Edit ${i}`, state: CLICKED_STATE },
        ),
      );
    }
    return times;
  } finally {
    await page.context().close();
  }
}
