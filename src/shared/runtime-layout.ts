/**
 * Where this code runs from: its TypeScript sources under tsx (development, tests, scripts) or
 * compiled to JavaScript under `dist/` (`npm run build`; what `./scripts/run.sh` and the image
 * start). Files read at run time (`schemas/`, `widget/`, `console/dist/`) are found from the
 * project's root, and a worker thread's module by the name it has in the running form, so both
 * forms read the same files.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether the code runs compiled (`dist/**\/*.js`) rather than from its sources. */
export const COMPILED = import.meta.url.endsWith('.js');

/** The nearest folder above this module holding a `package.json`: the checkout or the image's `/app`. */
function findProjectRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json in any folder above ${start}`);
  }
}

export const PROJECT_ROOT = findProjectRoot();

/** A path below the project's root, e.g. `projectPath('schemas')`. */
export function projectPath(...segments: string[]): string {
  return join(PROJECT_ROOT, ...segments);
}

/** A sibling module's URL as it runs: `new URL('./x.ts', import.meta.url)` is `./x.js` when compiled. */
export function runnableModule(url: URL): URL {
  return COMPILED ? new URL(url.href.replace(/\.ts$/, '.js')) : url;
}
