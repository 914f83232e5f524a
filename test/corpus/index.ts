/**
 * Every table of the bad-input corpus, and the totals docs/corpus.md shows. Add a table (say
 * documents uploaded to /v2/collections/<name>/files) by exporting its cases and listing them here.
 */
import { ADMIN_CASES } from './admin.ts';
import { DOCUMENT_CASES } from './documents.ts';
import { FLOW_CASES } from './flows.ts';
import { SCRIPT_CASES } from './scripts.ts';
import { TELEGRAM_CASES, TELEGRAM_REPLAYS } from './telegram.ts';
import {
  isReplay,
  isScript,
  type Case,
  type HttpCase,
  type ReplayCase,
  type ScriptCase,
} from './types.ts';
import { WEB_CASES } from './web.ts';
import { WHATSAPP_CASES, WHATSAPP_REPLAYS } from './whatsapp.ts';

export const HTTP_CASES: HttpCase[] = [
  ...TELEGRAM_CASES,
  ...WHATSAPP_CASES,
  ...ADMIN_CASES,
  ...FLOW_CASES,
  ...DOCUMENT_CASES,
  ...WEB_CASES,
];
export const REPLAY_CASES: ReplayCase[] = [...TELEGRAM_REPLAYS, ...WHATSAPP_REPLAYS];
export { SCRIPT_CASES };

export const ALL_CASES: Case[] = [...HTTP_CASES, ...REPLAY_CASES, ...SCRIPT_CASES];

/** The outcome a case must have: `HTTP <status> <code>` or `exit <n> <code>`. */
export function expectedOutcome(c: Case): string {
  if (isScript(c)) return `exit ${c.exit} ${c.code}`;
  if (isReplay(c)) return `HTTP 200 (published once)`;
  return `HTTP ${c.expect.status} ${c.expect.code ?? ''}`.trim();
}

function count<T>(items: T[], key: (item: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The corpus in numbers, as Markdown: cases by surface, by kind and by the outcome each must get.
 * docs/corpus.md holds this between markers; test/corpus.test.ts fails when it is stale.
 */
export function totalsMarkdown(cases: Case[] = ALL_CASES): string {
  // Laid out as prettier lays out Markdown tables, so formatting the doc keeps it identical.
  const table = (title: string, rows: [string, number][]): string => {
    const all: [string, string][] = [
      [title, 'cases'],
      ...rows.map(([k, n]): [string, string] => [k, String(n)]),
    ];
    const a = Math.max(...all.map(([k]) => k.length));
    const b = Math.max(...all.map(([, n]) => n.length));
    const line = ([k, n]: [string, string]) => `| ${k.padEnd(a)} | ${n.padEnd(b)} |`;
    const [head, ...body] = all;
    return [line(head!), `| ${'-'.repeat(a)} | ${'-'.repeat(b)} |`, ...body.map(line)].join('\n');
  };
  const scripts: ScriptCase[] = cases.filter(isScript);
  return [
    `${cases.length} cases: ${cases.length - scripts.length} HTTP requests (${cases.filter(isReplay).length} of them replays) and ${scripts.length} script runs.`,
    '',
    table(
      'surface',
      count(cases, (c) => c.surface),
    ),
    '',
    table(
      'kind',
      count(cases, (c) => c.kind),
    ),
    '',
    table('expected outcome', count(cases, expectedOutcome)),
  ].join('\n');
}

// `node --import tsx test/corpus/index.ts` prints the totals for docs/corpus.md.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/test\//, '/test/'))) {
  console.log(totalsMarkdown());
}
