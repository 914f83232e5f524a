import knexFactory, { type Knex } from 'knex';

export type { Knex } from 'knex';

/**
 * Opens a Knex pool on Postgres.
 * @param options.poolMax most connections kept open (count).
 * @param options.searchPath schema to work in (tests use one schema each); default `public`.
 */
export function createDb(
  url: string,
  options: { poolMax?: number; searchPath?: string } = {},
): Knex {
  return knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: options.poolMax ?? 10 },
    ...(options.searchPath ? { searchPath: [options.searchPath] } : {}),
  });
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
