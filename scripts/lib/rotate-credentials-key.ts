/**
 * The tool behind rotate-credentials-key.sh: re-seals every stored channel credential with the
 * current CREDENTIALS_KEY, opening each with it or a key of CREDENTIALS_KEY_PREVIOUS
 * (src/shared/bots/credentials-rotation.ts: one statement per channel, safe to interrupt and to
 * run again). Settings (DATABASE_URL, CREDENTIALS_KEY, CREDENTIALS_KEY_PREVIOUS) come from the
 * environment and env file.
 *
 * Prints one JSON line on stdout: `{ok, key_id, reencrypted, already_current, failed,
 * failed_channels}`, and a sentence saying the same on stderr. Never prints a key or a credential.
 *
 * Exit codes: 0 every channel is now sealed with CREDENTIALS_KEY; 1 some channels open with no
 * configured key (listed; the others were re-sealed); 2 bad usage or settings; 3 Postgres could
 * not be reached.
 */
import { ConfigError, loadConfig } from '../../src/config.ts';
import { rotateCredentials } from '../../src/shared/bots/credentials-rotation.ts';
import { createDb } from '../../src/shared/db.ts';
import { isUnavailable } from '../../src/shared/errors.ts';
import { maskUrl } from '../../src/shared/logger.ts';

const USAGE = 'usage: rotate-credentials-key.sh';

async function main(argv: string[]): Promise<number> {
  if (argv.length > 0) {
    console.error(`error: unexpected argument ${JSON.stringify(argv[0])}\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`error: BW_ERR_CONFIG: ${error.message}`);
    return 2;
  }
  if (!config.credentialsKey) {
    console.error(
      'error: BW_ERR_CONFIG: invalid configuration: CREDENTIALS_KEY is required by rotate-credentials-key',
    );
    return 2;
  }
  const db = createDb(config.databaseUrl, { poolMax: 2 });
  try {
    const result = await rotateCredentials({
      db,
      credentialsKey: config.credentialsKey,
      previousCredentialsKeys: config.previousCredentialsKeys,
    });
    const failed = result.failed.length;
    console.log(
      JSON.stringify({
        ok: failed === 0,
        key_id: result.keyId,
        reencrypted: result.reencrypted,
        already_current: result.alreadyCurrent,
        failed,
        failed_channels: result.failed,
      }),
    );
    console.error(
      `${result.reencrypted} re-encrypted, ${result.alreadyCurrent} already current, ${failed} failed (current key ${result.keyId})`,
    );
    for (const f of result.failed) {
      console.error(`  channel ${f.channel_id} of bot ${f.app_id}: ${f.reason}`);
    }
    if (failed > 0) {
      console.error(
        'The failed channels were sealed with a key that is not configured: add it to CREDENTIALS_KEY_PREVIOUS and run this again, or re-create those channels. Keep the previous keys until this reports 0 failed.',
      );
      return 1;
    }
    return 0;
  } catch (error) {
    if (isUnavailable(error) || (error as { code?: unknown }).code === '3D000') {
      console.error(
        `error: BW_ERR_UNAVAILABLE: cannot reach Postgres at ${maskUrl(config.databaseUrl)}`,
      );
      return 3;
    }
    throw error;
  } finally {
    await db.destroy().catch(() => undefined);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error(`error: BW_ERR_INTERNAL: ${text}`);
    process.exit(1);
  },
);
