/**
 * The console's first load: JavaScript and CSS shipped for the sign-in page (the entry, what it
 * imports, and the sign-in page's own chunk with its imports), in gzip bytes, against the budget in
 * ./budget.ts. Builds the console into a temporary folder (console/dist is left alone) with Vite's
 * manifest, which names each chunk's static imports and CSS. Prints a table with the machine's
 * load; exits 1 when over budget or when an editor library is shipped.
 *
 *   npm run bench:console
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../lib/setup.ts';
import { SIGN_IN_BUDGET_GZIP_BYTES } from './budget.ts';

interface Chunk {
  file: string;
  css?: string[];
  imports?: string[];
}

const SIGN_IN = 'src/pages/sign-in/sign-in-page.tsx';
const EDITOR_LIBRARIES = /codemirror|xyflow|@lezer/;

/** Files a chunk brings along (itself, its static imports, their CSS), depth first, once each. */
function closure(manifest: Record<string, Chunk>, key: string, into: Set<string>): void {
  const chunk = manifest[key];
  if (chunk === undefined) throw new Error(`the build manifest has no ${key}`);
  if (into.has(chunk.file)) return;
  into.add(chunk.file);
  for (const css of chunk.css ?? []) into.add(css);
  for (const imported of chunk.imports ?? []) closure(manifest, imported, into);
}

function main(): number {
  const out = mkdtempSync(join(tmpdir(), 'botwire-console-bench-'));
  try {
    execFileSync(
      join(ROOT, 'node_modules/.bin/vite'),
      [
        'build',
        '--config',
        'console/vite.config.ts',
        '--outDir',
        out,
        '--emptyOutDir',
        '--manifest',
        '--logLevel',
        'error',
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const manifest = JSON.parse(readFileSync(join(out, '.vite/manifest.json'), 'utf8')) as Record<
      string,
      Chunk
    >;
    const files = new Set<string>();
    closure(manifest, 'index.html', files);
    closure(manifest, SIGN_IN, files);
    const rows = [...files].map((file) => {
      const bytes = readFileSync(join(out, file));
      return { file, bytes: bytes.length, gzip: gzipSync(bytes).length };
    });
    const total = rows.reduce((sum, r) => sum + r.gzip, 0);
    const js = rows.filter((r) => r.file.endsWith('.js')).reduce((s, r) => s + r.gzip, 0);
    const css = rows.filter((r) => r.file.endsWith('.css')).reduce((s, r) => s + r.gzip, 0);
    const editor = [...files].filter((f) => EDITOR_LIBRARIES.test(f));
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    const [one, five] = loadavg();
    process.stdout.write(
      `console sign-in page, first load (${cpus().length} cores, load ${one?.toFixed(2)} / ${five?.toFixed(2)})\n\n` +
        `| file | bytes | gzip |\n|---|---:|---:|\n` +
        rows.map((r) => `| ${r.file} | ${kb(r.bytes)} | ${kb(r.gzip)} |`).join('\n') +
        `\n| **total (JS ${kb(js)}, CSS ${kb(css)})** | | **${kb(total)}** |\n\n` +
        `budget ${kb(SIGN_IN_BUDGET_GZIP_BYTES)} gzip: ${total <= SIGN_IN_BUDGET_GZIP_BYTES ? 'within' : 'OVER'}; ` +
        `editor libraries shipped: ${editor.length === 0 ? 'none' : editor.join(', ')}\n`,
    );
    return total <= SIGN_IN_BUDGET_GZIP_BYTES && editor.length === 0 ? 0 : 1;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

process.exitCode = main();
