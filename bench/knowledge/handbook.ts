/**
 * The quality bench's corpus: chapters of The Debian Administrator's Handbook (Raphaël Hertzog and
 * Roland Mas, GPL-2+ or CC-BY-SA-3.0), as Debian 12 ships it in the package `debian-handbook`
 * (HTML only, one page per section), printed to one PDF per chapter by Debian's `chromium`
 * (headless, through playwright-core, as the browser tests drive it). Both packages are installed
 * with apt-get when missing and this runs as root. The PDFs are printed afresh into the bench's
 * temporary folder on every run (about 15 s): nothing is cached, nothing enters the repository
 * (the book's licence and size).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const run = promisify(execFile);

/** Where the package puts the English book. */
export const HANDBOOK_HTML = '/usr/share/doc/debian-handbook/html/en-US';
/** Debian's chromium, as the browser tests use it. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * The chapters printed, by the file name of their first page: the administration chapters
 * (5 to 12 and 14), about 300 A4 pages. The questions (questions.ts) are about these.
 */
export const CHAPTERS = [
  'packaging-system',
  'apt',
  'solving-problems',
  'basic-configuration',
  'unix-services',
  'network-infrastructure',
  'network-services',
  'advanced-administration',
  'security',
] as const;

/** One chapter's HTML pages, in reading order. */
interface Chapter {
  id: string;
  title: string;
  pages: string[];
}

async function dpkgVersion(pkg: string): Promise<string> {
  try {
    const { stdout } = await run('dpkg-query', ['-W', '-f=${Version}', pkg]);
    return stdout.trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Installs `pkg` with apt-get when `path` is missing (root only), or says how to. */
async function ensurePackage(pkg: string, path: string): Promise<void> {
  if (existsSync(path)) return;
  const root = process.getuid?.() === 0;
  if (!root) throw new Error(`${path} is missing; install it: sudo apt-get install ${pkg}`);
  console.error(`bench: installing ${pkg} with apt-get (${path} is missing)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update'], { env, maxBuffer: 64 * 1024 * 1024 });
  await run('apt-get', ['install', '-y', pkg], { env, maxBuffer: 64 * 1024 * 1024 });
  if (!existsSync(path)) throw new Error(`${path} is still missing after apt-get install ${pkg}`);
}

const attribute = (html: string, pattern: RegExp): string | undefined => pattern.exec(html)?.[1];

/** The book's pages from index.html on, following each page's `<link rel="next">`, cut into chapters. */
async function readChapters(): Promise<Chapter[]> {
  const chapters: Chapter[] = [];
  let file: string | undefined = 'index.html';
  const seen = new Set<string>();
  while (file && !seen.has(file)) {
    seen.add(file);
    const html = await readFile(join(HANDBOOK_HTML, file), 'utf8');
    // The titles hold no-break spaces ("Chapter\u00a06.").
    const title = (attribute(html, /<title[^>]*>([^<]*)<\/title>/) ?? '').replace(/\s+/g, ' ');
    // A chapter or an appendix starts a group; its sections follow it.
    if (/^(Chapter \d+|Appendix [A-Z])\./.test(title)) {
      chapters.push({ id: file.replace(/\.html$/, ''), title, pages: [file] });
    } else if (file.startsWith('sect.') && chapters.length > 0) {
      chapters.at(-1)!.pages.push(file);
    }
    file = attribute(html, /<link rel="next" href="([^"#]+)"/);
  }
  return chapters;
}

/** One HTML document of a chapter's pages: their bodies one after another, the navigation hidden. */
async function chapterHtml(chapter: Chapter): Promise<string> {
  const bodies: string[] = [];
  for (const page of chapter.pages) {
    const html = await readFile(join(HANDBOOK_HTML, page), 'utf8');
    const body = /<body[^>]*>([\s\S]*)<\/body>/.exec(html)?.[1];
    if (body === undefined) throw new Error(`${page}: no <body>`);
    bodies.push(body);
  }
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<base href="file://${HANDBOOK_HTML}/">
<title>${chapter.title}</title>
<link rel="stylesheet" href="Common_Content/css/print.css">
<style>#banner, #title, ul.docnav { display: none !important; } body { margin: 0; }</style>
</head><body>${bodies.join('\n')}</body></html>`;
}

export interface HandbookPdfs {
  /** File names in `dir`, in the book's order. */
  files: string[];
  /** `debian-handbook <version>, chromium <version>`. */
  made: string;
  /** Seconds spent printing. */
  seconds: number;
}

/**
 * Prints the chapters of {@link CHAPTERS} into `dir`, one PDF per chapter named by its number in
 * the book (`06-apt.pdf`), installing the packages first when missing (root only).
 */
export async function handbookPdfs(dir: string): Promise<HandbookPdfs> {
  await ensurePackage('debian-handbook', join(HANDBOOK_HTML, 'index.html'));
  await ensurePackage('chromium', CHROMIUM);
  const made = `debian-handbook ${await dpkgVersion('debian-handbook')}, chromium ${await dpkgVersion('chromium')}`;
  const chapters = (await readChapters()).filter((c) =>
    (CHAPTERS as readonly string[]).includes(c.id),
  );
  const missing = CHAPTERS.filter((id) => !chapters.some((c) => c.id === id));
  if (missing.length > 0) throw new Error(`the handbook has no chapter ${missing.join(', ')}`);
  const files = chapters.map(
    (c) => `${(/^Chapter (\d+)/.exec(c.title)?.[1] ?? '').padStart(2, '0')}-${c.id}.pdf`,
  );

  const started = performance.now();
  await mkdir(dir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root (CI containers) cannot use chromium's sandbox.
    args: ['--no-sandbox'],
  });
  try {
    const page = await browser.newPage();
    for (const [i, chapter] of chapters.entries()) {
      const html = join(dir, `${chapter.id}.html`);
      await writeFile(html, await chapterHtml(chapter));
      await page.goto(`file://${html}`, { waitUntil: 'load' });
      await page.pdf({
        path: join(dir, files[i]!),
        format: 'A4',
        margin: { top: '20mm', bottom: '20mm', left: '18mm', right: '18mm' },
      });
      await rm(html);
    }
  } finally {
    await browser.close();
  }
  return { files, made, seconds: (performance.now() - started) / 1000 };
}
