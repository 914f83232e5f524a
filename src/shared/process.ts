/**
 * Runs one component as a process: loads the config, starts the component, and drains it on
 * SIGTERM or SIGINT (a second signal forces the exit). Each component's `main.ts` hands it the
 * `process` object, so that file stays the only one that reaches for it.
 */
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { BotwireError, type ErrorCode } from './errors.ts';
import { createLogger, type Logger } from './logger.ts';

/** What a started component gives back: a way to stop it. */
export interface Service {
  /** Stops taking work, finishes in-flight work, closes connections. Idempotent. */
  close(): Promise<void>;
  /**
   * How long `close()` keeps taking work at first, while saying it is stopping (api's
   * API_DRAIN_DELAY_MS, ms); SHUTDOWN_TIMEOUT_MS counts from its end.
   */
  drainDelayMs?: number;
}

export type StartComponent = (config: Config, logger: Logger) => Promise<Service>;

/** Exit code for a bad configuration (sysexits EX_CONFIG). */
export const EXIT_CONFIG = 78;

/** Start-up failures that a setting causes: logged as one line without a stack, exit EXIT_CONFIG. */
const STARTUP_SETTING_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'BW_ERR_CONFIG',
  'BW_ERR_CREDENTIALS_KEY',
  'BW_ERR_LAYOUT',
]);

/** Starts `component` with settings from `proc.env` and manages its lifetime. */
export async function runComponent(
  proc: NodeJS.Process,
  component: string,
  start: StartComponent,
): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(proc.env, component);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    proc.stderr.write(`${component}: ${error.message}\n`);
    proc.exit(EXIT_CONFIG);
  }
  const logger = createLogger({ component, level: config.logLevel });

  proc.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection');
    proc.exit(1);
  });

  let service: Service;
  try {
    service = await start(config, logger);
  } catch (error) {
    if (error instanceof BotwireError && STARTUP_SETTING_ERRORS.has(error.code)) {
      // The operator's to fix, and the message says how: no stack trace.
      logger.fatal({ code: error.code, ...error.details }, `could not start: ${error.message}`);
      logger.flush();
      proc.exit(EXIT_CONFIG);
    }
    logger.fatal({ err: error }, 'could not start');
    proc.exit(1);
  }
  logger.info({ pid: proc.pid }, 'started');

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      proc.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'draining');
    const timeoutMs = config.shutdownTimeoutMs + (service.drainDelayMs ?? 0);
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'drain timed out; exiting');
      proc.exit(1);
    }, timeoutMs);
    timer.unref();
    service.close().then(
      () => {
        logger.info('stopped');
        logger.flush();
        proc.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        proc.exit(1);
      },
    );
  };
  proc.on('SIGTERM', stop);
  proc.on('SIGINT', stop);
}
