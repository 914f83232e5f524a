/** The knowledge bench's results on stdout: indexing against the raw libraries, search latency. */
import type { Corpus } from './corpus.ts';
import type { MemorySample } from './memory.ts';
import { QUERY_KINDS, type BuiltCollection, type Timed } from './queries.ts';
import { table } from '../lib/table.ts';

/** Indexing must keep at least this share of the raw libraries' speed. */
export const TARGET_RATIO = 0.7;
/** p99 search latency must stay under this, in milliseconds. */
export const TARGET_P99_MS = 20;

/** What raw.ts printed. */
export interface RawRun {
  units: number;
  seconds: number;
  cpuSeconds: number;
  characters: number;
  maxRssBytes: number;
}

export interface IndexRun {
  units: number;
  /** From the publish of the topic message to the finished job row. */
  seconds: number;
  /** The job's own started_at → finished_at (Postgres clock). */
  jobSeconds: number | undefined;
  /** CPU time of the indexer process. */
  cpuSeconds: number | undefined;
  /** CPU time of the Postgres backends serving the scratch database. */
  postgresCpuSeconds: number | undefined;
  chunks: number;
  memory: MemorySample;
}

/** Raw and ours measured back to back on the same files. */
export interface Round {
  raw: RawRun;
  ours: IndexRun;
}

/** Ours units/s over raw units/s. */
export const ratioOf = ({ raw, ours }: Round): number =>
  ours.units / ours.seconds / (raw.units / raw.seconds);

const MiB = (bytes: number | undefined): string =>
  bytes === undefined ? '-' : (bytes / 1024 / 1024).toFixed(0);
const fixed = (value: number | undefined, digits: number): string =>
  value === undefined ? '-' : value.toFixed(digits);

/** The q-quantile (0..1) of `values`, nearest rank. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

function latencyRow(name: string, times: Timed[]): string[] {
  const ms = times.map((t) => t.ms);
  const hit = times.filter((t) => t.hits > 0).length;
  return [
    name,
    String(times.length),
    `${Math.round((100 * hit) / Math.max(1, times.length))}%`,
    quantile(ms, 0.5).toFixed(1),
    quantile(ms, 0.9).toFixed(1),
    quantile(ms, 0.99).toFixed(1),
    Math.max(0, ...ms).toFixed(1),
  ];
}

export function printReport(report: {
  load: number[];
  loadAfter: number[];
  pdfs: Corpus;
  sheets: Corpus;
  xlsxFiles: number;
  csvFiles: number;
  sheetsPerFile: number;
  rawPdf: RawRun;
  oursPdf: IndexRun;
  rawSheets: RawRun;
  oursSheets: IndexRun;
  /** The indexer's RSS once started, before the warm-up job. */
  indexerStartRss: number | undefined;
  /** Ours/raw of each round, in order. */
  roundRatios: { pdfs: number[]; sheets: number[] };
  search: {
    built: BuiltCollection;
    direct: Timed[];
    http: Timed[] | undefined;
    /** CPU time per searchCollection call: the Postgres backends, and the calling process. */
    cpuPerSearch: { postgresMs: number | undefined; callerMs: number };
  };
}): void {
  const { pdfs, sheets, rawPdf, oursPdf, rawSheets, oursSheets, search } = report;
  const loads = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  console.log(
    `\ncorpus: ${pdfs.units} pages in ${pdfs.files.length} PDFs (${MiB(pdfs.bytes)} MiB); ` +
      `${sheets.units} rows in ${report.xlsxFiles} xlsx (${report.sheetsPerFile} sheets each) and ` +
      `${report.csvFiles} csv (${MiB(sheets.bytes)} MiB)`,
  );
  console.log(`load average: ${loads(report.load)} at start, ${loads(report.loadAfter)} at end\n`);

  const rawRow = (name: string, unit: string, raw: RawRun): string[] => [
    name,
    `${raw.units} ${unit}`,
    raw.seconds.toFixed(2),
    (raw.units / raw.seconds).toFixed(0),
    raw.cpuSeconds.toFixed(2),
    '-',
    '-',
    MiB(raw.maxRssBytes),
    '1.00',
  ];
  const oursRow = (name: string, unit: string, ours: IndexRun, raw: RawRun): string[] => [
    name,
    `${ours.units} ${unit}`,
    ours.seconds.toFixed(2),
    (ours.units / ours.seconds).toFixed(0),
    fixed(ours.cpuSeconds, 2),
    fixed(ours.postgresCpuSeconds, 2),
    String(ours.chunks),
    `${MiB(ours.memory.start)} → ${MiB(ours.memory.hwm ?? ours.memory.sampled)}`,
    (ours.units / ours.seconds / (raw.units / raw.seconds)).toFixed(2),
  ];
  console.log(
    table([
      [
        'indexing',
        'units',
        'seconds',
        'units/s',
        'CPU s',
        'pg CPU s',
        'chunks',
        'RSS MiB',
        'vs raw',
      ],
      rawRow('raw: pdf-parse getText', 'pages', rawPdf),
      oursRow('ours: indexer job, PDFs', 'pages', oursPdf, rawPdf),
      rawRow('raw: SheetJS read + sheet_to_json', 'rows', rawSheets),
      oursRow('ours: indexer job, spreadsheets', 'rows', oursSheets, rawSheets),
    ]),
  );
  console.log(
    `\n  ours: seconds from the topic message's publish to the finished job row (the job's own ` +
      `started→finished: PDFs ${fixed(oursPdf.jobSeconds, 2)} s, spreadsheets ${fixed(oursSheets.jobSeconds, 2)} s);` +
      `\n  RSS: raw = the baseline process's peak; ours = the indexer process (spreadsheet worker ` +
      `threads included) before the job → its peak during the job (VmHWM; sampled peak ` +
      `${MiB(oursPdf.memory.sampled)} and ${MiB(oursSheets.memory.sampled)} MiB; ` +
      `${MiB(report.indexerStartRss)} MiB once started, before the warm-up job)`,
  );
  if (report.roundRatios.pdfs.length > 1) {
    const each = (ratios: number[]): string => ratios.map((r) => r.toFixed(2)).join(' ');
    console.log(
      `\n  ${report.roundRatios.pdfs.length} rounds, the median round shown; ours/raw in each: ` +
        `PDFs ${each(report.roundRatios.pdfs)}, spreadsheets ${each(report.roundRatios.sheets)}`,
    );
  }
  console.log(`\ntarget: indexing units/s >= ${TARGET_RATIO} x raw`);
  for (const [name, ours, raw] of [
    ['PDFs', oursPdf, rawPdf],
    ['spreadsheets', oursSheets, rawSheets],
  ] as const) {
    const ratio = ours.units / ours.seconds / (raw.units / raw.seconds);
    const cpuRatio = ours.cpuSeconds === undefined ? undefined : raw.cpuSeconds / ours.cpuSeconds;
    const withPostgres =
      ours.cpuSeconds === undefined || ours.postgresCpuSeconds === undefined
        ? undefined
        : raw.cpuSeconds / (ours.cpuSeconds + ours.postgresCpuSeconds);
    console.log(
      `  ${ratio >= TARGET_RATIO ? 'MEETS' : 'BELOW'}  ${ratio.toFixed(2)}  ${name}` +
        ` (by CPU time: raw / indexer ${fixed(cpuRatio, 2)}, raw / (indexer + Postgres) ${fixed(withPostgres, 2)})`,
    );
  }

  console.log(
    `\nsearch: collection of ${search.built.chunks} chunks (${search.built.language}), stored in ` +
      `${search.built.seconds.toFixed(1)} s through chunk + storeFile + finishJob; k = 5, one at a time\n`,
  );
  const rows = [['queries', 'count', 'hits>0', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms']];
  rows.push(latencyRow('searchCollection: all', search.direct));
  for (const kind of QUERY_KINDS) {
    rows.push(
      latencyRow(
        `  ${kind}`,
        search.direct.filter((t) => t.kind === kind),
      ),
    );
  }
  if (search.http) rows.push(latencyRow('GET .../search: all', search.http));
  console.log(table(rows));
  console.log(
    `\n  CPU per searchCollection call: Postgres ${fixed(search.cpuPerSearch.postgresMs, 2)} ms, ` +
      `caller ${search.cpuPerSearch.callerMs.toFixed(2)} ms (on an idle machine, about the latency)`,
  );
  console.log(`\ntarget: p99 < ${TARGET_P99_MS} ms`);
  for (const [name, times] of [
    ['searchCollection', search.direct],
    ['GET /v2/collections/<name>/search', search.http],
  ] as const) {
    if (!times) continue;
    const p99 = quantile(
      times.map((t) => t.ms),
      0.99,
    );
    console.log(`  ${p99 < TARGET_P99_MS ? 'MEETS' : 'BELOW'}  ${p99.toFixed(1)} ms  ${name}`);
  }
}
