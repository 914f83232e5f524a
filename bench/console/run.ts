/**
 * The console bench (`npm run bench:console`), see RESULTS.md:
 *
 * 1. Bytes: the JavaScript and CSS, gzip, that the sign-in page and the flow editor
 *    (`/console/bots/<id>/flow`, CodeMirror excluded until the JSON tab opens) load, each against
 *    its budget (./budget.ts); an editor library in the sign-in page's set fails too.
 * 2. Time: the editor opening a 200-state flow in Debian's chromium against the real service
 *    (six processes, started as the browser tests start them), from navigation to the graph
 *    interactive, median of BENCH_RUNS runs (default 5), beside a 10-state flow opened in the
 *    same run, alternately, as the baseline.
 * 3. Time per edit: a state's message text changed BENCH_EDITS times (default 20) in each of
 *    the two flows, from the field's input event to the frame showing it on the canvas (goal:
 *    under 100 ms on the 200-state flow).
 * 4. Building: the six-state flow of the browser test built from a blank flow by the canvas and
 *    by the forms alone, BENCH_BUILDS times (default 2) each, alternated: gestures and time
 *    (goal: under 25 gestures by the canvas). See ./build-flow.ts.
 *
 * Prints tables with the machine's load; exits 1 when a page is over its budget. BENCH_BYTES_ONLY=1
 * skips the browser.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { startConsoleService } from '../../test/browser/service.ts';
import { percentile } from '../pipeline/report.ts';
import { intEnv, ROOT } from '../lib/setup.ts';
import { EDITOR_BUDGET_GZIP_BYTES, SIGN_IN_BUDGET_GZIP_BYTES } from './budget.ts';
import { buildSixStates, type Build, type BuildWay } from './build-flow.ts';
import { measurePages, type PageBytes } from './bytes.ts';
import { chainFlow, createBot, editTimes, openEditor } from './editor-open.ts';

const EDITOR_LIBRARIES = /codemirror|xyflow|@lezer/;
const runs = intEnv('BENCH_RUNS', 5, 1);
const edits = intEnv('BENCH_EDITS', 20, 1);
const builds = intEnv('BENCH_BUILDS', 2, 1);
const BIG = 200;
const SMALL = 10;

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
const load = (): string => {
  const [one, five] = loadavg();
  return `${cpus().length} cores, load ${one?.toFixed(2)} / ${five?.toFixed(2)}`;
};

function bytesTable(title: string, page: PageBytes, budget: number): string {
  return (
    `${title}\n\n| file | bytes | gzip |\n|---|---:|---:|\n` +
    page.files.map((r) => `| ${r.file} | ${kb(r.bytes)} | ${kb(r.gzip)} |`).join('\n') +
    `\n| **total (JS ${kb(page.js)}, CSS ${kb(page.css)})** | | **${kb(page.total)}** |\n\n` +
    `budget ${kb(budget)} gzip: ${page.total <= budget ? 'within' : 'OVER'} (${((page.total / budget) * 100).toFixed(0)} %)\n`
  );
}

async function editorTimes(): Promise<void> {
  // The service serves console/dist: built when missing or stale, as scripts/test.sh does.
  execFileSync('bash', ['-c', '. scripts/lib/common.sh && bw_ensure_console'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  console.error('bench: starting the service (six processes) and chromium');
  const running = await startConsoleService();
  try {
    const { service } = running;
    const bots: Record<number, string> = {
      [SMALL]: await createBot(service, `bench ${SMALL} states`, chainFlow(SMALL)),
      [BIG]: await createBot(service, `bench ${BIG} states`, chainFlow(BIG)),
    };
    const times: Record<number, number[]> = { [SMALL]: [], [BIG]: [] };
    // One unmeasured opening of each: the api's first answers and chromium's first start.
    for (const states of [SMALL, BIG]) await openEditor(service, bots[states]!);
    const loadBefore = load();
    for (let run = 1; run <= runs; run += 1) {
      for (const states of [SMALL, BIG]) {
        const ms = await openEditor(service, bots[states]!);
        times[states]!.push(ms);
        console.error(`bench: run ${run}, ${states} states: ${ms.toFixed(0)} ms`);
      }
    }
    const row = (states: number): string => {
      const sorted = [...times[states]!].sort((a, b) => a - b);
      return `| ${states} | ${percentile(sorted, 0.5).toFixed(0)} | ${sorted[0]!.toFixed(0)} | ${sorted[sorted.length - 1]!.toFixed(0)} | ${sorted.map((t) => t.toFixed(0)).join(', ')} |`;
    };
    const median = (states: number) =>
      percentile(
        [...times[states]!].sort((a, b) => a - b),
        0.5,
      );
    process.stdout.write(
      `\nflow editor, navigation to the graph interactive, ${runs} runs each, alternated ` +
        `(before: ${loadBefore}; after: ${load()})\n\n` +
        `| states | median ms | min ms | max ms | runs ms |\n|---:|---:|---:|---:|---|\n` +
        `${row(SMALL)}\n${row(BIG)}\n\n` +
        `${BIG} states against ${SMALL}: ${(median(BIG) / median(SMALL)).toFixed(2)}x the time\n`,
    );
    const edited: Record<number, number[]> = {
      [SMALL]: await editTimes(service, bots[SMALL]!, edits),
      [BIG]: await editTimes(service, bots[BIG]!, edits),
    };
    const editRow = (states: number): string => {
      const sorted = [...edited[states]!].sort((a, b) => a - b);
      return `| ${states} | ${percentile(sorted, 0.5).toFixed(1)} | ${percentile(sorted, 0.9).toFixed(1)} | ${sorted[sorted.length - 1]!.toFixed(1)} |`;
    };
    const editMedian = (states: number) =>
      percentile(
        [...edited[states]!].sort((a, b) => a - b),
        0.5,
      );
    process.stdout.write(
      `\nan edit (message text) to the frame showing it, ${edits} edits each (${load()})\n\n` +
        `| states | median ms | p90 ms | max ms |\n|---:|---:|---:|---:|\n` +
        `${editRow(SMALL)}\n${editRow(BIG)}\n\n` +
        `${BIG} states against ${SMALL}: ${(editMedian(BIG) / editMedian(SMALL)).toFixed(2)}x the time; goal under 100 ms\n`,
    );
    const built: Record<BuildWay, Build[]> = { canvas: [], forms: [] };
    for (let run = 1; run <= builds; run += 1) {
      for (const way of ['canvas', 'forms'] as const) {
        const build = await buildSixStates(service, way);
        built[way].push(build);
        console.error(
          `bench: build ${run} by ${way}: ${build.gestures} gestures, ${build.ms.toFixed(0)} ms`,
        );
      }
    }
    const buildMedian = (way: BuildWay) =>
      percentile(
        built[way].map((b) => b.ms).sort((a, b) => a - b),
        0.5,
      );
    const gestures = (way: BuildWay) => built[way][0]!.gestures;
    const buildRow = (way: BuildWay): string =>
      `| ${way} | ${gestures(way)} | ${(buildMedian(way) / 1000).toFixed(1)} | ${built[way].map((b) => (b.ms / 1000).toFixed(1)).join(', ')} |`;
    process.stdout.write(
      `\nthe six-state flow built from a blank flow, ${builds} builds each, alternated (${load()})\n\n` +
        `| by | gestures | median s | builds s |\n|---|---:|---:|---|\n` +
        `${buildRow('canvas')}\n${buildRow('forms')}\n\n` +
        `canvas against forms: ${(gestures('canvas') / gestures('forms')).toFixed(2)}x the gestures, ` +
        `${(buildMedian('canvas') / buildMedian('forms')).toFixed(2)}x the time; goal under 25 gestures\n`,
    );
  } finally {
    await running.stop();
  }
}

async function main(): Promise<number> {
  const pages = measurePages({
    signIn: 'src/pages/sign-in/sign-in-page.tsx',
    editor: 'src/pages/flow-editor/flow-editor-page.tsx',
  });
  const shipped = pages.signIn.files.map((f) => f.file).filter((f) => EDITOR_LIBRARIES.test(f));
  const codemirror = pages.editor.files
    .map((f) => f.file)
    .filter((f) => /codemirror|@lezer/.test(f));
  process.stdout.write(
    `console first load (${load()})\n\n` +
      bytesTable('sign-in page', pages.signIn, SIGN_IN_BUDGET_GZIP_BYTES) +
      `editor libraries shipped: ${shipped.length === 0 ? 'none' : shipped.join(', ')}\n\n` +
      bytesTable('flow editor (/console/bots/<id>/flow)', pages.editor, EDITOR_BUDGET_GZIP_BYTES) +
      `CodeMirror shipped before the JSON tab opens: ${codemirror.length === 0 ? 'no' : codemirror.join(', ')}\n`,
  );
  const within =
    pages.signIn.total <= SIGN_IN_BUDGET_GZIP_BYTES &&
    shipped.length === 0 &&
    pages.editor.total <= EDITOR_BUDGET_GZIP_BYTES &&
    codemirror.length === 0;
  if (process.env.BENCH_BYTES_ONLY !== '1') await editorTimes();
  return within ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`bench: failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
}
