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
