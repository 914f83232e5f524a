/**
 * Where the Postgres server programs (initdb, pg_ctl, postgres) are. Debian keeps them in
 * /usr/lib/postgresql/<version>/bin, off PATH, so a bare `initdb` fails on a fresh machine.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const DEBIAN_ROOT = '/usr/lib/postgresql';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `pg_config --bindir`, found on the given PATH; undefined when there is no pg_config. */
function pgConfigBindir(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return execFileSync('pg_config', ['--bindir'], { env, encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return undefined;
  }
}

/** Debian's per-version folders, newest version first. */
function debianBindirs(root: string): string[] {
  let versions: string[];
  try {
    versions = readdirSync(root).filter((name) => /^\d+(\.\d+)?$/.test(name));
  } catch {
    return [];
  }
  return versions
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, 'bin'));
}

/**
 * The folders searched for a server program, in order: `pg_config --bindir`, Debian's
 * /usr/lib/postgresql/<version>/bin (newest first), then PATH.
 *
 * @param env whose PATH is searched (for pg_config too). @defaultValue process.env
 * @param debianRoot the folder of Debian's versions. @defaultValue /usr/lib/postgresql
 */
export function pgToolDirs(
  env: NodeJS.ProcessEnv = process.env,
  debianRoot = DEBIAN_ROOT,
): string[] {
  const fromPath = (env.PATH ?? '').split(delimiter).filter(Boolean);
  const dirs = [pgConfigBindir(env), ...debianBindirs(debianRoot), ...fromPath];
  return [...new Set(dirs.filter((dir): dir is string => Boolean(dir)))];
}

/**
 * The absolute path of a Postgres server program such as `initdb` or `pg_ctl`.
 *
 * @throws Error naming the folders searched and the package to install, when none has it.
 */
export function pgTool(
  tool: string,
  env: NodeJS.ProcessEnv = process.env,
  debianRoot = DEBIAN_ROOT,
): string {
  const dirs = pgToolDirs(env, debianRoot);
  for (const dir of dirs) {
    const path = join(dir, tool);
    if (executable(path)) return path;
  }
  throw new Error(
    `${tool} not found in ${dirs.join(', ') || '(no folder)'}; install the Postgres server (Debian/Ubuntu: apt-get install postgresql), or run ./scripts/test.sh, which does`,
  );
}
