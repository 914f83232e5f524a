/**
 * The six-state flow of test/browser/six-state-build.ts built in Debian's chromium against the
 * real service, by the canvas and by the forms alone, from a bot on the blank flow: the gestures
 * each way takes (clicks, fields typed into, options chosen, drags) and the time from the first
 * gesture to the last, on a 1440×900 page. Each build is checked: its states must be the flow's.
 */
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { BLANK_FLOW } from '../../console/src/pages/bots/blank-flow.ts';
import { signIn, type ConsoleService } from '../../test/browser/service.ts';
import { byCanvas, byForms, SIX_STATE_FLOW } from '../../test/browser/six-state-build.ts';
import { createBot } from './editor-open.ts';

export type BuildWay = 'canvas' | 'forms';

export interface Build {
  gestures: number;
  ms: number;
}

const WAYS = { canvas: byCanvas, forms: byForms };

/** One build of the six-state flow by `way`, on a new bot. */
export async function buildSixStates(service: ConsoleService, way: BuildWay): Promise<Build> {
  const appId = await createBot(service, `bench build by ${way}`, BLANK_FLOW);
  const page = await service.newPage();
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, service.adminKey);
    await page.goto(`/console/bots/${appId}/flow`);
    const bar = page.getByRole('toolbar', { name: 'Draft and publish' });
    await bar
      .getByRole('status')
      .filter({ hasText: /^Valid/ })
      .waitFor();
    const started = performance.now();
    const gestures = await WAYS[way](page);
    const ms = performance.now() - started;
    await bar.getByRole('button', { name: 'Save draft' }).click();
    await bar.getByText('Draft saved.').waitFor();
    const response = await fetch(`${service.url}/v2/bots/${appId}/flow`, {
      headers: { authorization: `Bearer ${service.adminKey}` },
    });
    const states = ((await response.json()) as { draft: { flow: { states: unknown } } }).draft.flow
      .states;
    if (!isDeepStrictEqual(states, SIX_STATE_FLOW.states)) {
      throw new Error(`the build by ${way} made another flow: ${JSON.stringify(states)}`);
    }
    return { gestures, ms };
  } finally {
    await page.context().close();
  }
}
