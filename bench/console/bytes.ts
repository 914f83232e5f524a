/**
 * What a page of the console ships: builds the console into a temporary folder (console/dist is
 * left alone) with Vite's manifest, which names each chunk's static imports and CSS, and adds up
 * the gzip bytes of what a page loads. Dynamic imports are left out: they load later (the flow
 * editor's JSON tab brings CodeMirror only when it is opened).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../lib/setup.ts';

interface Chunk {
  file: string;
  css?: string[];
  imports?: string[];
}

/** One file a page loads, in bytes as built and gzipped (level 6, as most servers do). */
export interface FileBytes {
  file: string;
  bytes: number;
  gzip: number;
}

/** What a page loads: its files and their gzip totals. */
export interface PageBytes {
  files: FileBytes[];
  js: number;
  css: number;
  total: number;
}

/** Files a chunk brings along (itself, its static imports, their CSS), depth first, once each. */
function closure(manifest: Record<string, Chunk>, key: string, into: Set<string>): void {
  const chunk = manifest[key];
  if (chunk === undefined) throw new Error(`the build manifest has no ${key}`);
  if (into.has(chunk.file)) return;
  into.add(chunk.file);
  for (const css of chunk.css ?? []) into.add(css);
  for (const imported of chunk.imports ?? []) closure(manifest, imported, into);
}

/**
 * Builds the console once and measures each page: the entry (`index.html`'s script and
 * stylesheet) plus the page's own chunk (a manifest key, `src/pages/...tsx`) with its static
 * imports.
 */
export function measurePages<Name extends string>(
  pages: Record<Name, string>,
): Record<Name, PageBytes> {
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
    const sizes = new Map<string, FileBytes>();
    const sizeOf = (file: string): FileBytes => {
      let size = sizes.get(file);
      if (size === undefined) {
        const bytes = readFileSync(join(out, file));
        size = { file, bytes: bytes.length, gzip: gzipSync(bytes).length };
        sizes.set(file, size);
      }
      return size;
    };
    const result = {} as Record<Name, PageBytes>;
    for (const [name, key] of Object.entries(pages) as [Name, string][]) {
      const files = new Set<string>();
      closure(manifest, 'index.html', files);
      closure(manifest, key, files);
      const rows = [...files].map(sizeOf);
      const sum = (ext: string) =>
        rows.filter((r) => r.file.endsWith(ext)).reduce((s, r) => s + r.gzip, 0);
      result[name] = {
        files: rows,
        js: sum('.js'),
        css: sum('.css'),
        total: sum('.js') + sum('.css'),
      };
    }
    return result;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
