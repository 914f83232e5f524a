/**
 * A Postgres with pgvector for the tests of the pgvector path: PGlite (Postgres compiled to
 * WebAssembly, from npm) with its pgvector and pg_trgm extensions, served on a local port by
 * `@electric-sql/pglite-socket`, so the project's own code reaches it through `pg` as it reaches
 * any Postgres. The stock Debian Postgres 15 the scripts install has no pgvector; this one has
 * pgvector 0.8. PGlite is one session, which the socket server shares among its connections: a
 * `set` by one is seen by all, so one database serves one schema's pool at a time.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface PgvectorDatabase {
  /** A connection URL for `createDb`/`createTestSchema`. */
  url: string;
  stop(): Promise<void>;
}

export async function startPgvectorDatabase(): Promise<PgvectorDatabase> {
  const db = await PGlite.create({ extensions: { vector, pg_trgm } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 20 });
  await server.start();
  const [host, port] = server.getServerConn().split(':');
  return {
    url: `postgres://postgres:postgres@${host}:${port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
