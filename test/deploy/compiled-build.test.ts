/**
 * The compiled build (`npm run build`, dist/) that `scripts/run.sh`, the image and the process
 * tests run: every module is there, nothing in it needs a TypeScript loader, and the modules that
 * start worker threads on our own TypeScript (patterns, PDFs) start them compiled. The components
 * themselves run compiled in every test that starts them as processes (`support/components.ts`),
 * and the image's `migrate` in `dockerfile.test.ts`. `scripts/test.sh` builds dist/ first.
 */
import { expect } from 'chai';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import XLSX from 'xlsx';
import { pdf } from '../support/knowledge-fixtures.ts';
import { run } from '../support/run.ts';
import { ROOT } from '../support/services.ts';

/** Files under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path).map((f) => join(name, f)));
    else out.push(name);
  }
  return out;
}

describe('the compiled build (dist/)', function () {
  this.timeout(60_000);
  const dist = join(ROOT, 'dist');

  it('when built, then every source module, migration and worker script has its JavaScript, and none imports TypeScript or tsx', () => {
    const built = new Set(filesUnder(dist));
    const sources = [
      ...filesUnder(join(ROOT, 'src')).map((f) => join('src', f)),
      ...filesUnder(join(ROOT, 'migrations')).map((f) => join('migrations', f)),
      'knexfile.ts',
      'scripts/lib/stream-layout.ts',
      'scripts/lib/migrate.ts',
    ].filter((f) => /\.(ts|mjs)$/.test(f) && !f.endsWith('.d.ts'));
    expect(sources.length, 'sources found').to.be.greaterThan(200);
    const missing = sources.map((f) => f.replace(/\.ts$/, '.js')).filter((f) => !built.has(f));
    expect(missing, 'sources without their compiled module').to.deep.equal([]);

    const wrong: string[] = [];
    for (const file of built) {
      if (!/\.(js|mjs)$/.test(file)) continue;
      const code = readFileSync(join(dist, file), 'utf8');
      if (/(?:from\s+|import\s*\(\s*)['"][^'"]+\.ts['"]/.test(code))
        wrong.push(`${file}: imports .ts`);
      if (/['"]tsx(?:\/[^'"]*)?['"]/.test(code) && file !== 'src/shared/worker-thread.js')
        wrong.push(`${file}: names tsx`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('when compiled modules run pattern matches, PDFs and spreadsheets in worker threads, then the threads start without a loader and answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botwire-compiled-'));
    try {
      writeFileSync(join(dir, 'a.pdf'), await pdf(['First page of the manual.', 'Second page.']));
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(
        book,
        XLSX.utils.aoa_to_sheet([
          ['plan', 'price'],
          ['basic', 5],
        ]),
        'Prices',
      );
      writeFileSync(
        join(dir, 'a.xlsx'),
        XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer,
      );
      // Plain node with no --import: a TypeScript module anywhere on the way would not load.
      const script = `
        import { readFileSync } from 'node:fs';
        const { workerBootstrap } = await import('./dist/src/shared/worker-thread.js');
        const { PatternMatcher } = await import('./dist/src/flow/pattern-matcher.js');
        const { extractPdf } = await import('./dist/src/indexer/extract/pdf.js');
        const { extractSpreadsheet } = await import('./dist/src/indexer/extract/spreadsheet.js');
        const { createLogger } = await import('./dist/src/shared/logger.js');
        const matcher = new PatternMatcher({ logger: createLogger({ component: 'test', level: 'silent' }), timeoutMs: 10000 });
        const accepted = await matcher.test('^[A-Z]{2}\\\\d{4}$', 'AB1234');
        const refused = await matcher.test('^[A-Z]{2}\\\\d{4}$', 'nope');
        await matcher.close();
        const pages = await extractPdf(readFileSync(${JSON.stringify(join(dir, 'a.pdf'))}));
        const sheets = await extractSpreadsheet(readFileSync(${JSON.stringify(join(dir, 'a.xlsx'))}), 'xlsx');
        const bootstrap = workerBootstrap(new URL('./dist/src/flow/pattern-worker.ts', 'file://' + process.cwd() + '/'));
        console.log(JSON.stringify({ accepted, refused, pages, sheets, bootstrap }));`;
      const result = await run('node', ['--input-type=module', '-e', script], {
        timeoutMs: 50_000,
      });
      expect(result.code, result.stderr).to.equal(0);
      const out = JSON.parse(result.stdout.trim().split('\n').pop()!) as {
        accepted: string;
        refused: string;
        pages: { text: string }[];
        sheets: { sheet: string; rows: unknown[] }[];
        bootstrap: string;
      };
      expect([out.accepted, out.refused]).to.deep.equal(['accepted', 'refused']);
      expect(out.pages.map((p) => p.text.trim())).to.deep.equal([
        'First page of the manual.',
        'Second page.',
      ]);
      expect(out.sheets.map((s) => s.sheet)).to.deep.equal(['Prices']);
      expect(JSON.stringify(out.sheets[0]?.rows)).to.contain('basic');
      expect(out.bootstrap, 'the thread imports the compiled module, no loader').to.equal(
        `import(${JSON.stringify(`file://${ROOT.replace(/\/$/, '')}/dist/src/flow/pattern-worker.js`)});`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when built, then every file in dist/ comes from a source of today (no removed migration lingers to run)', () => {
    const orphans = filesUnder(dist).filter((file) => {
      // Written by the build itself: its stamp, and the language model's table (language-model.mjs).
      if (file === '.built' || file === 'language-model/eld-medium.json') return false;
      const source = file.endsWith('.js') ? file.replace(/\.js$/, '.ts') : file;
      try {
        return !statSync(join(ROOT, source)).isFile();
      } catch {
        return true;
      }
    });
    expect(orphans).to.deep.equal([]);
  });

  it('when dist/ is fresh, then run.sh and test.sh leave it and say nothing; the staleness rule (bw_stale) names the missing build, or the newer source', async () => {
    const fresh = await run('bash', ['-c', 'source scripts/lib/common.sh && bw_ensure_build']);
    expect([fresh.code, fresh.stderr]).to.deep.equal([0, '']);

    const dir = mkdtempSync(join(tmpdir(), 'botwire-stale-'));
    try {
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', 'a.ts'), '');
      const stale = (): Promise<{ code: number | null; stderr: string }> =>
        run('bash', [
          '-c',
          `source scripts/lib/common.sh && cd "${dir}" && bw_stale out/.built things out src`,
        ]);
      const missing = await stale();
      expect([missing.code, missing.stderr]).to.deep.equal([
        0,
        'building things: out is missing\n',
      ]);
      mkdirSync(join(dir, 'out'));
      writeFileSync(join(dir, 'out', '.built'), '');
      const past = new Date('2000-01-01T00:00:00Z');
      utimesSync(join(dir, 'src', 'a.ts'), past, past);
      utimesSync(join(dir, 'src'), past, past);
      const current = await stale();
      expect([current.code, current.stderr]).to.deep.equal([1, '']);
      const older1999 = new Date('1999-01-01T00:00:00Z');
      utimesSync(join(dir, 'out', '.built'), older1999, older1999);
      const older = await stale();
      expect([older.code, older.stderr]).to.deep.equal([
        0,
        'building things: src is newer than out\n',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
