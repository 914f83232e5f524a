/** What the scripts that call the admin API share: where it is, how to call it, how to exit. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Ends the tool with `code`, printing the message. */
export class Exit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The command line as `options` read it, positionals allowed. @throws Exit 2 with `usage` */
export function parseCommandLine<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  usage: string,
) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    throw new Exit(2, `${(error as Error).message}\n${usage}`);
  }
}

/** Runs a tool's `main` and exits with its code; a failure is printed as `error: …`. */
export function runTool(main: Promise<number>): void {
  main.then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exit(error instanceof Exit ? error.code : 1);
    },
  );
}

/** BOTWIRE_API_URL, else the api of the env file's API_HOST and API_PORT. */
export function apiUrl(env: NodeJS.ProcessEnv): string {
  if (env.BOTWIRE_API_URL) return env.BOTWIRE_API_URL.replace(/\/+$/, '');
  const host = !env.API_HOST || env.API_HOST === '0.0.0.0' ? '127.0.0.1' : env.API_HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${env.API_PORT || '8000'}`;
}

type ApiError = { error?: { code: string; message: string } } | undefined;

/**
 * The answer's text of `method path` with bearer `key`. @throws Exit 3 when the api cannot be
 * reached or answers 5xx, 2 for another refusal (its code and message printed)
 */
async function callText(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: FormData | string,
  type?: string,
): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(type ? { 'content-type': type } : {}) },
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    throw new Exit(
      3,
      `the api at ${base} could not be reached (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}); is it running? (./scripts/run.sh)`,
    );
  }
  const text = await response.text();
  if (!response.ok) {
    let json: unknown;
    try {
      json = JSON.parse(text) as unknown;
    } catch {
      json = undefined;
    }
    const problem = (json as ApiError)?.error;
    const detail = problem ? `${problem.code}: ${problem.message}` : text.slice(0, 200);
    throw new Exit(
      response.status >= 500 ? 3 : 2,
      `${method} ${path} answered ${response.status}: ${detail}`,
    );
  }
  return text;
}

/** The answer of `method path` as JSON (undefined when it is not JSON). @throws Exit as `callText` */
export async function call(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: FormData | string,
  type?: string,
): Promise<unknown> {
  const text = await callText(base, key, method, path, body, type);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
