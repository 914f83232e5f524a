/**
 * Flow versions and drafts in Postgres (docs/flows.md, "Versions"). Every published flow is an
 * immutable numbered row of `flow_versions`; `bots.flow_version` names the current one and
 * `bots.flow` holds a copy of its flow, which is all the flow component reads per turn.
 *
 * Numbering: every write of a version first locks the bot's row (`select ... for update`), so two
 * publishes at once are serialised and get consecutive, distinct numbers; the primary key
 * (app_id, version) would refuse a duplicate anyway.
 */
import type { Knex } from '../db.ts';
import { BotwireError } from '../errors.ts';

export interface FlowVersion {
  version: number;
  flow: Record<string, unknown>;
  author: string;
  created_at: Date;
  note: string | null;
}

export interface FlowDraft {
  flow: Record<string, unknown>;
  author: string;
  /** Bumped on every save. */
  revision: number;
  updated_at: Date;
}

/** Refuses a flow by throwing (`BW_ERR_FLOW_INVALID`); returns when it may be published. */
export type FlowCheck = (flow: unknown) => void;

const VERSION_COLUMNS = ['version', 'flow', 'author', 'created_at', 'note'] as const;

/** Locks the bot's row for the rest of the transaction; false when there is no such bot. */
async function lockBot(trx: Knex, appId: string): Promise<boolean> {
  const row: unknown = await trx('bots').where({ app_id: appId }).forUpdate().first('app_id');
  return row !== undefined;
}

/**
 * Writes `flow` as the bot's next version and makes it current, inside `trx` (the caller's
 * transaction: bot creation, a PATCH, a publish).
 * @returns the version, or undefined when the bot does not exist.
 */
export async function appendVersion(
  trx: Knex,
  appId: string,
  input: { flow: Record<string, unknown>; author: string; note?: string | null },
): Promise<FlowVersion | undefined> {
  if (!(await lockBot(trx, appId))) return undefined;
  const next = await trx.raw<{ rows: { version: number }[] }>(
    'select coalesce(max(version), 0) + 1 as version from flow_versions where app_id = ?',
    [appId],
  );
  const version = next.rows[0]!.version;
  const [row]: FlowVersion[] = await trx('flow_versions')
    .insert({
      app_id: appId,
      version,
      flow: input.flow,
      author: input.author,
      note: input.note ?? null,
    })
    .returning([...VERSION_COLUMNS]);
  await trx('bots')
    .where({ app_id: appId })
    .update({ flow: input.flow, flow_version: version, updated_at: trx.fn.now() });
  return row;
}

export class FlowVersionStore {
  readonly #db: Knex;

  constructor(db: Knex) {
    this.#db = db;
  }

  /** The current version, or undefined when the bot does not exist. */
  async current(appId: string): Promise<FlowVersion | undefined> {
    const row: FlowVersion | undefined = await this.#db('bots as b')
      .join('flow_versions as v', function () {
        this.on('v.app_id', 'b.app_id').andOn('v.version', 'b.flow_version');
      })
      .where('b.app_id', appId)
      .first(VERSION_COLUMNS.map((c) => `v.${c}`));
    return row;
  }

  /** The number of the current version; undefined when the bot does not exist. */
  async currentNumber(appId: string): Promise<number | undefined> {
    const row: { flow_version: number } | undefined = await this.#db('bots')
      .where({ app_id: appId })
      .first('flow_version');
    return row?.flow_version;
  }

  async get(appId: string, version: number): Promise<FlowVersion | undefined> {
    const found: FlowVersion | undefined = await this.#db('flow_versions')
      .where({ app_id: appId, version })
      .first([...VERSION_COLUMNS]);
    return found;
  }

  /**
   * Versions newest first, `limit` of them below `before` (a version number; all when absent),
   * plus the one just older than the last, so each can be compared with its predecessor.
   */
  async list(appId: string, limit: number, before?: number): Promise<FlowVersion[]> {
    const query = this.#db<FlowVersion & { app_id: string }>('flow_versions')
      .where({ app_id: appId })
      .orderBy('version', 'desc')
      .limit(limit + 1)
      .select([...VERSION_COLUMNS]);
    if (before !== undefined) void query.where('version', '<', before);
    return query;
  }

  async draft(appId: string): Promise<FlowDraft | undefined> {
    const found: FlowDraft | undefined = await this.#db('flow_drafts')
      .where({ app_id: appId })
      .first('flow', 'author', 'revision', 'updated_at');
    return found;
  }

  /** Saves the bot's draft, replacing the one before; undefined when the bot does not exist. */
  async saveDraft(
    appId: string,
    flow: Record<string, unknown>,
    author: string,
  ): Promise<FlowDraft | undefined> {
    return this.#db.transaction(async (trx) => {
      // The lock orders a save against a publish of the same bot (which deletes the draft).
      if (!(await lockBot(trx, appId))) return undefined;
      const [row]: FlowDraft[] = await trx('flow_drafts')
        .insert({ app_id: appId, flow, author, revision: 1 })
        .onConflict('app_id')
        .merge({
          flow,
          author,
          revision: trx.raw('flow_drafts.revision + 1'),
          updated_at: trx.fn.now(),
        })
        .returning(['flow', 'author', 'revision', 'updated_at']);
      return row;
    });
  }

  /** @returns whether there was a draft. */
  async deleteDraft(appId: string): Promise<boolean> {
    return (await this.#db('flow_drafts').where({ app_id: appId }).delete()) > 0;
  }

  /**
   * Publishes the bot's draft as its next version and deletes the draft.
   * @throws BotwireError `BW_ERR_UNKNOWN_BOT`; `BW_ERR_NO_DRAFT` when the bot has no draft;
   *   whatever `check` throws for a draft that may not be published.
   */
  async publishDraft(
    appId: string,
    input: { author: string; note?: string | null; check: FlowCheck },
  ): Promise<FlowVersion> {
    return this.#db.transaction(async (trx) => {
      if (!(await lockBot(trx, appId)))
        throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
      const draft = await trx<{ app_id: string; flow: Record<string, unknown> }>('flow_drafts')
        .where({ app_id: appId })
        .first('flow');
      if (!draft) throw new BotwireError('BW_ERR_NO_DRAFT', 'this bot has no draft to publish');
      input.check(draft.flow);
      const version = await appendVersion(trx, appId, {
        flow: draft.flow,
        author: input.author,
        note: input.note ?? null,
      });
      await trx('flow_drafts').where({ app_id: appId }).delete();
      return version!;
    });
  }

  /**
   * Makes an earlier (or later) version current again; no new version is written.
   * @throws BotwireError `BW_ERR_UNKNOWN_BOT`; `BW_ERR_NOT_FOUND` for a version the bot does not
   *   have; whatever `check` throws for a flow that no longer validates.
   */
  async rollback(appId: string, version: number, check: FlowCheck): Promise<FlowVersion> {
    return this.#db.transaction(async (trx) => {
      if (!(await lockBot(trx, appId)))
        throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
      const row: FlowVersion | undefined = await trx('flow_versions')
        .where({ app_id: appId, version })
        .first([...VERSION_COLUMNS]);
      if (!row)
        throw new BotwireError('BW_ERR_NOT_FOUND', `this bot has no flow version ${version}`);
      check(row.flow);
      await trx('bots')
        .where({ app_id: appId })
        .update({ flow: row.flow, flow_version: version, updated_at: trx.fn.now() });
      return row;
    });
  }

  /**
   * Conversations of the bot that wait (not ended) in a state `states` does not name, counted by
   * that state. The state a conversation waits in is the one its `awaiting` names, else its
   * current state: the same rule the flow component applies (`src/flow/removed-state.ts`).
   */
  async waitingOutside(
    appId: string,
    states: string[],
  ): Promise<{ state: string; conversations: number }[]> {
    const rows = await this.#db.raw<{ rows: { state: string; conversations: number }[] }>(
      `select w.state, count(*)::int as conversations
       from (
         select coalesce(state->'awaiting'->>'state', state->>'state') as state
         from conversation_state
         where app_id = ? and coalesce(state->>'ended', 'false') <> 'true'
           -- Test chats run the flow they started with: a new version strands none of them.
           and not exists (
             select 1 from conversations c join channels ch on ch.id = c.channel_id
             where c.id = conversation_state.conversation_id and ch.type = 'console')
       ) w
       where w.state is not null and not (w.state = any(?::text[]))
       group by w.state
       order by conversations desc, w.state`,
      [appId, states],
    );
    return rows.rows;
  }
}
