import knexFactory, { type Knex } from 'knex';
import type { Logger } from './logger.ts';

export type { Knex } from 'knex';

/** How a pool's connections behave; every field is optional. */
export interface DbOptions {
  /** Most connections kept open (count); default 10. */
  poolMax?: number;
  /** Schema to work in (tests use one schema each); default `public`. */
  searchPath?: string;
  /** Shown in `pg_stat_activity` and the server's log lines, e.g. `botwire-flow`. */
  applicationName?: string;
  /**
   * The server cancels a statement running longer (SQLSTATE 57014). 0 or unset: not set by us, so
   * the server's or the role's `statement_timeout` applies.
   */
  statementTimeoutMs?: number;
  /**
   * The server ends a session whose transaction sits idle longer (SQLSTATE 25P03), releasing its
   * locks; the pool drops that connection. 0 or unset: not set by us, as above.
   */
  idleInTransactionTimeoutMs?: number;
  /** Opening a connection fails after this long; default 10 s. */
  connectTimeoutMs?: number;
  /** Where Knex's own warnings go (a lost connection, a failed acquire); default the console. */
  logger?: Logger;
}

/**
 * Opens a Knex pool on Postgres. The name and the limits travel as startup parameters of each
 * connection (no extra round trip; a parameter in the URL's query string wins over them).
 * Connections use TCP keepalive (first probe after 10 s idle), so an idle connection to a peer
 * that vanished without closing the socket is noticed by the kernel instead of never.
 */
export function createDb(url: string, options: DbOptions = {}): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      ...(options.applicationName ? { application_name: options.applicationName } : {}),
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      ...(options.idleInTransactionTimeoutMs
        ? { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }
        : {}),
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    ...(options.logger ? { log: knexLog(options.logger) } : {}),
    ...(options.searchPath ? { searchPath: [options.searchPath] } : {}),
  });
}

/** Knex's log hooks, as structured log lines instead of console output. */
function knexLog(logger: Logger): Knex.Config['log'] {
  const db = logger.child({ module: 'knex' });
  return {
    warn: (message: unknown) => db.warn({ detail: String(message) }, 'postgres pool warning'),
    error: (message: unknown) => db.error({ detail: String(message) }, 'postgres pool error'),
    deprecate: (method: string, alternative: string) =>
      db.warn({ method, alternative }, 'knex deprecation'),
    debug: (message: unknown) => db.debug({ detail: String(message) }, 'knex debug'),
  };
}

/**
 * A statement of the hot path, prepared by name: each connection has Postgres parse and plan it
 * once, then only binds and executes it. An unnamed statement is parsed and planned on every call,
 * which for the pipeline's upserts cost Postgres about as much CPU as executing them (see
 * docs/pipeline.md). Its text must not vary (a batch passes its rows as one JSON or array
 * parameter, not as a list of placeholders), and its name must be unique in the process.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** A named statement; `$1`, `$2`, ... are its parameters. */
export function prepared(name: string, text: string): PreparedStatement {
  return { name, text };
}

/** The part of node-postgres' client this module uses. */
interface PgClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{
    rows: unknown[];
  }>;
}

/** The part of Knex's client (typed `any` by Knex) this module uses: its pool and its events. */
interface KnexClient {
  acquireConnection(): Promise<PgClient & { __knexUid?: string }>;
  releaseConnection(connection: PgClient): Promise<void>;
  emit(event: 'query', query: object): boolean;
  emit(event: 'query-error', error: unknown, query: object): boolean;
}

/**
 * Runs a prepared statement on a connection of the Knex pool (so it shares the pool's size,
 * search path, timeouts and broken-connection handling) and returns its rows. Knex's `query` and
 * `query-error` events see it as they see Knex's own queries. A failure is node-postgres' own
 * error, with its SQLSTATE `code`.
 */
export async function runPrepared<Row>(
  db: Knex,
  statement: PreparedStatement,
  values: readonly unknown[],
): Promise<Row[]> {
  // Knex types its client as `any`; its pool's connections are node-postgres clients.
  const client = db.client as KnexClient;
  const connection = await client.acquireConnection();
  const query = {
    __knexUid: connection.__knexUid,
    method: 'raw',
    name: statement.name,
    sql: statement.text,
    bindings: values,
  };
  try {
    client.emit('query', query);
    const result = await connection.query({ name: statement.name, text: statement.text, values });
    return result.rows as Row[];
  } catch (error) {
    client.emit('query-error', error, query);
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}
