/**
 * The tool behind index.sh: uploads documents to a collection through the admin API, starts a job
 * indexing the collection (every document uploaded to it, these included), and draws its progress (files and chunks done) until it ends. A
 * terminal gets a redrawn bar on stderr; a pipe or log gets one line per change. The outcome is
 * printed per file; failures with their code and reason.
 *
 *   index-cli.ts [--bot <app_id>] [--shared] <collection> <file ...>
 *
 * `--bot` makes the collection that bot's and `--shared` lets every bot's flow read it
 * (`PATCH /v2/collections/<name>`, before the upload); without either, who may read it is left
 * as it is (a new collection: no bot, see docs/knowledge.md "Who may read a collection").
 *
 * Exit codes: 0 every file indexed; 1 a file failed or the job failed; 2 bad usage, bad settings
 * or an upload refused (too large, unread type); 3 the api could not be reached or answered 5xx.
 */
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiUrl, call, Exit, parseCommandLine, runTool } from './api-client.ts';

const USAGE = 'usage: index.sh [--bot <app_id>] [--shared] <collection> <file ...>';
const FINISHED = new Set(['succeeded', 'partial', 'failed', 'superseded']);

interface FileView {
  name: string;
  status: string;
  chunks?: number;
  kept_chunks?: number;
  error?: { code: string; reason?: string; message: string };
}

interface JobView {
  job_id: string;
  status: string;
  progress: { files_total: number; files_done: number; chunks_done: number };
  files: FileView[];
  error?: string;
}

function bar(job: JobView, width = 30): string {
  const { files_total: total, files_done: done, chunks_done: chunks } = job.progress;
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} files, ${chunks} chunks`;
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommandLine(
    argv,
    { bot: { type: 'string' }, shared: { type: 'boolean' } },
    USAGE,
  );
  const [collection, ...paths] = parsed.positionals;
  if (!collection || paths.length === 0) throw new Exit(2, USAGE);
  const { bot, shared } = parsed.values;
  const key = env.ADMIN_API_KEY;
  if (!key) throw new Exit(2, 'ADMIN_API_KEY is not set (env file or environment)');
  const base = apiUrl(env);

  const form = new FormData();
  const names: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) throw new Exit(2, `${path}: no such file`);
    const name = basename(path);
    if (names.includes(name)) throw new Exit(2, `two files are named ${name}`);
    names.push(name);
    form.append('file', await openAsBlob(path), name);
  }
  const collectionPath = `/v2/collections/${encodeURIComponent(collection)}`;
  if (bot !== undefined || shared) {
    const access = {
      ...(bot !== undefined ? { owner_app_id: bot } : {}),
      ...(shared ? { shared: true } : {}),
    };
    await call(base, key, 'PATCH', collectionPath, JSON.stringify(access), 'application/json');
    process.stderr.write(
      `${collection} may be read by ${[bot && `bot ${bot}`, shared && 'every bot'].filter(Boolean).join(' and ')}\n`,
    );
  }
  process.stderr.write(`uploading ${names.length} file(s) to ${collection}\n`);
  // Replacing is the point of this script: an updated file takes its old version's place.
  await call(base, key, 'POST', `${collectionPath}/files?replace=true`, form);
  // The whole collection: a job's content replaces the collection's, so indexing only the files
  // given would drop the others from search.
  const started = (await call(base, key, 'POST', `${collectionPath}/index`)) as {
    job_id: string;
    files: string[];
  };
  process.stderr.write(
    `indexing job ${started.job_id}: ${started.files.length} file(s) of ${collection}\n`,
  );
  const since = Date.now();
  let hinted = false;

  const tty = process.stderr.isTTY;
  let last = '';
  let job: JobView;
  for (;;) {
    job = (await call(base, key, 'GET', `/v2/index-jobs/${started.job_id}`)) as JobView;
    const line = bar(job);
    if (line !== last) {
      process.stderr.write(tty ? `\r${line}` : `${line}\n`);
      last = line;
    }
    if (FINISHED.has(job.status)) break;
    if (!hinted && job.status === 'queued' && Date.now() - since > 30_000) {
      process.stderr.write(
        '\nstill queued after 30 s: is an indexer running? (./scripts/run.sh)\n',
      );
      hinted = true;
    }
    await sleep(250);
  }
  if (tty) process.stderr.write('\n');

  let failed = 0;
  for (const file of job.files) {
    if (file.status === 'indexed') {
      process.stdout.write(`indexed  ${file.name} (${file.chunks ?? 0} chunks)\n`);
    } else {
      failed += 1;
      const e = file.error;
      const kept = file.kept_chunks ? `; its previous ${file.kept_chunks} chunks are kept` : '';
      process.stdout.write(
        `FAILED   ${file.name}: ${e ? `${e.code}${e.reason ? ` (${e.reason})` : ''}: ${e.message}` : file.status}${kept}\n`,
      );
    }
  }
  process.stdout.write(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}\n`);
  return failed > 0 || job.status !== 'succeeded' ? 1 : 0;
}

runTool(main(process.argv.slice(2), process.env));
