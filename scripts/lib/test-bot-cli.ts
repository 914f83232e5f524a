/**
 * The tool behind test-bot.sh: runs a bot's conversation tests through the admin API
 * (`POST /v2/bots/<app_id>/tests/run`), prints each test with its failures, and writes JUnit XML
 * for CI systems when asked.
 *
 *   test-bot-cli.ts <app_id> [--version N|current|draft] [--junit FILE]
 *
 * Exit codes: 0 every test passed (or the bot has none); 1 a test failed; 2 bad usage or a request
 * refused; 3 the api could not be reached or answered 5xx (BW_ERR_TESTS_UNAVAILABLE included).
 */
import { writeFile } from 'node:fs/promises';
import { junitXml } from '../../src/api/conversation-tests/junit.ts';
import type { TestRunResult } from '../../src/shared/flows/conversation-test-types.ts';
import { apiUrl, call, Exit, parseCommandLine, runTool } from './api-client.ts';

const USAGE = 'usage: test-bot.sh <app_id> [--version N|current|draft] [--junit FILE]';

function versionOf(raw: string | undefined): 'draft' | 'current' | number | undefined {
  if (raw === undefined || raw === 'draft' || raw === 'current') return raw;
  if (/^[1-9]\d{0,8}$/.test(raw)) return Number(raw);
  throw new Exit(2, `--version must be a version number, current or draft\n${USAGE}`);
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommandLine(
    argv,
    { version: { type: 'string' }, junit: { type: 'string' } },
    USAGE,
  );
  const [appId, ...rest] = parsed.positionals;
  if (!appId || rest.length > 0) throw new Exit(2, USAGE);
  const version = versionOf(parsed.values.version);
  const key = env.BOTWIRE_TOKEN || env.ADMIN_API_KEY;
  if (!key)
    throw new Exit(2, 'neither BOTWIRE_TOKEN nor ADMIN_API_KEY is set (env file or environment)');
  const base = apiUrl(env);
  const run = (await call(
    base,
    key,
    'POST',
    `/v2/bots/${encodeURIComponent(appId)}/tests/run`,
    JSON.stringify(version === undefined ? {} : { version }),
    'application/json',
  )) as TestRunResult & { flow: { draft?: number; version?: number } };
  const on =
    run.flow.draft !== undefined ? `draft ${run.flow.draft}` : `version ${run.flow.version}`;
  if (run.tests.length === 0) console.log(`bot ${appId} has no conversation tests (${on})`);
  for (const test of run.tests) {
    console.log(`${test.passed ? 'pass' : 'FAIL'}  ${test.name} (${test.duration_ms} ms)`);
    for (const failure of test.failures) console.log(`      ${failure.where}: ${failure.message}`);
  }
  console.log(`${run.passed} passed, ${run.failed} failed on ${on}`);
  if (parsed.values.junit) {
    await writeFile(parsed.values.junit, await junitXml(`${appId} (${on})`, run));
    console.log(`JUnit XML written to ${parsed.values.junit}`);
  }
  return run.failed === 0 ? 0 : 1;
}

runTool(main(process.argv.slice(2), process.env));
