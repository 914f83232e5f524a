/**
 * What rounds of writes cost on one Postgres connection, alternated between two modes (without
 * and with what is measured) so both see the same machine: wall time, this process's CPU, the
 * Postgres backend's CPU (`/proc/<pid>/stat`, 10 ms ticks), WAL bytes and rows written (inserted,
 * updated or deleted, from the backend's table statistics, flushed before each read).
 */
import { cpuSeconds } from '../edge/processes.ts';
import type { Knex } from '../../src/shared/db.ts';

export type Mode = 'without' | 'with';

interface Cost {
  units: number;
  wallMs: number;
  cpuMs: number;
  pgCpuS: number | null;
  walBytes: number;
  rows: number;
}

const zero = (): Cost => ({ units: 0, wallMs: 0, cpuMs: 0, pgCpuS: 0, walBytes: 0, rows: 0 });

export class Meter {
  readonly #costs: Record<Mode, Cost> = { without: zero(), with: zero() };

  private constructor(
    private readonly db: Knex,
    private readonly backend: number,
  ) {}

  /** A meter of `db`'s one connection. */
  static async of(db: Knex): Promise<Meter> {
    const { rows } = await db.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid');
    return new Meter(db, rows[0]!.pid);
  }

  async #wal(): Promise<bigint> {
    const r = await this.db.raw<{ rows: { lsn: string }[] }>(
      `select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text as lsn`,
    );
    return BigInt(r.rows[0]!.lsn.split('.')[0]!);
  }

  /** Rows inserted, updated and deleted in this schema's tables so far, this backend's included. */
  async #rows(): Promise<number> {
    // Reported when the backend goes idle after this statement, at once when forced.
    await this.db.raw('select pg_stat_force_next_flush()');
    const r = await this.db.raw<{ rows: { n: string }[] }>(
      `select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text as n
       from pg_stat_user_tables where schemaname = current_schema()`,
    );
    return Number(r.rows[0]!.n);
  }

  /** Runs one round of `units` writes in `mode` and adds what it cost. */
  async round(mode: Mode, units: number, run: () => Promise<void>): Promise<void> {
    const rowsBefore = await this.#rows();
    const walBefore = await this.#wal();
    const pgBefore = cpuSeconds(this.backend);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await run();
    const cost = this.#costs[mode];
    cost.wallMs += performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    cost.cpuMs += (cpu.user + cpu.system) / 1000;
    const pgAfter = cpuSeconds(this.backend);
    cost.pgCpuS =
      cost.pgCpuS === null || pgBefore === undefined || pgAfter === undefined
        ? null
        : cost.pgCpuS + pgAfter - pgBefore;
    cost.walBytes += Number((await this.#wal()) - walBefore);
    cost.rows += (await this.#rows()) - rowsBefore;
    cost.units += units;
  }

  /** The table of both modes per `unit` (`units`, its plural), and with against without. */
  table(unit: string, units = `${unit}s`): string {
    const row = (mode: Mode): string => {
      const c = this.#costs[mode];
      const per = (n: number) => n / c.units;
      const pg = c.pgCpuS === null ? 'n/a' : (per(c.pgCpuS) * 1e6).toFixed(0);
      return `| ${mode} | ${c.units} | ${(per(c.wallMs) * 1000).toFixed(0)} | ${(per(c.cpuMs) * 1000).toFixed(0)} | ${pg} | ${per(c.walBytes).toFixed(0)} | ${per(c.rows).toFixed(2)} |`;
    };
    const ratio = (pick: (c: Cost) => number | null): string => {
      const a = pick(this.#costs.with);
      const b = pick(this.#costs.without);
      return a === null || b === null || b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`;
    };
    return (
      `| counts | ${units} | wall µs/${unit} | bench CPU µs/${unit} | Postgres CPU µs/${unit} | WAL bytes/${unit} | rows written/${unit} |\n|---|---:|---:|---:|---:|---:|---:|\n` +
      `${row('without')}\n${row('with')}\n\n` +
      `with against without: wall ${ratio((c) => c.wallMs)}, Postgres CPU ${ratio((c) => c.pgCpuS)}, WAL ${ratio((c) => c.walBytes)}, rows written ${ratio((c) => c.rows)}\n`
    );
  }
}
