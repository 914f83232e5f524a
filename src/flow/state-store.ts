/**
 * Conversation state in `conversation_state`, written with optimistic concurrency: a write names
 * the version it read and fails if another write came first. With one reader per partition that
 * should not happen; if it does (a stalled process whose lease passed on), the turn is retried
 * on the fresh state instead of overwriting it.
 */
import { prepared, runPrepared, type Knex } from '../shared/db.ts';
import { Batcher } from '../shared/batcher.ts';
import { BotwireError } from '../shared/errors.ts';
import { newConversation, type ConversationState } from './engine/types.ts';
import { rollupCtes } from './analytics/rollup-sql.ts';
import type { TurnCounts } from './analytics/turn-counts.ts';

/** How many applied turn ids a conversation remembers, to recognise redeliveries. */
const RECENT_TURNS = 50;

export interface StoredState {
  state: ConversationState;
  /** 0 when the conversation has no row yet. */
  version: number;
  recentTurns: string[];
  outbox: unknown;
}

interface Row {
  state: ConversationState;
  version: number;
  recent_turns: string[];
  outbox: unknown;
}

// Every statement here is prepared (`shared/db.ts`): flow runs them on every turn, and planning
// them cost Postgres about as much as running them.
const LOAD = prepared(
  'flow_load_state',
  `select state, version, recent_turns, outbox from conversation_state where conversation_id = $1`,
);

export async function loadState(db: Knex, conversationId: string): Promise<StoredState> {
  const [row] = await runPrepared<Row>(db, LOAD, [conversationId]);
  if (!row) return { state: newConversation(), version: 0, recentTurns: [], outbox: null };
  return {
    state: row.state,
    version: row.version,
    recentTurns: row.recent_turns,
    outbox: row.outbox,
  };
}

// A conversation's first write inserts; later ones update the version they read. Parameters: $1
// conversation, $2 app (insert) or read version (update), $3 state, $4 recent turns, $5 outbox,
// $6 the turn's analytics counts (a JSON array of none or one, `analytics/rollup-sql.ts`).
const INSERT = `insert into conversation_state (conversation_id, app_id, state, version, recent_turns, outbox)
  values ($1, $2, $3::jsonb, 1, $4::jsonb, $5::jsonb)
  on conflict (conversation_id) do nothing
  returning conversation_id`;
const UPDATE = `update conversation_state
  set state = $3::jsonb, version = $2::integer + 1, recent_turns = $4::jsonb, outbox = $5::jsonb,
      updated_at = now()
  where conversation_id = $1 and version = $2::integer
  returning conversation_id`;
/** The write with the turn's rollups; with `language`, the user's chosen language ($7) too. */
const save = (write: string, language: boolean): string =>
  `with s as (${write}),
   ${language ? 'l as (update conversations set language = $7 where id = $1 and exists (select 1 from s)),' : ''}
   ${rollupCtes('$6', 's')}
   select count(*)::int as written from s`;
const SAVE = {
  insert: {
    plain: prepared('flow_insert_state', save(INSERT, false)),
    language: prepared('flow_insert_state_language', save(INSERT, true)),
  },
  update: {
    plain: prepared('flow_update_state', save(UPDATE, false)),
    language: prepared('flow_update_state_language', save(UPDATE, true)),
  },
};

/**
 * Writes the state after a turn, if nobody wrote since `previous` was read; records the turn id
 * and what it published. The user's chosen language goes onto the conversation, and the turn's
 * analytics counts onto the rollups, in the same statement. One statement, so one round trip and
 * atomic without BEGIN and COMMIT.
 * @returns the state as now stored.
 */
export async function saveState(
  db: Knex,
  input: {
    appId: string;
    conversationId: string;
    previous: StoredState;
    state: ConversationState;
    turnId: string;
    outbox: unknown;
    /** What the turn adds to the bot's analytics; none for a test chat's. */
    counts?: TurnCounts | null;
  },
): Promise<StoredState> {
  const { appId, conversationId, previous, state, turnId, outbox } = input;
  const recent = [...previous.recentTurns, turnId].slice(-RECENT_TURNS);
  const language = state.language && state.language !== previous.state.language;
  const first = previous.version === 0;
  const statement = SAVE[first ? 'insert' : 'update'][language ? 'language' : 'plain'];
  const [result] = await runPrepared<{ written: number }>(db, statement, [
    conversationId,
    first ? appId : previous.version,
    JSON.stringify(state),
    JSON.stringify(recent),
    JSON.stringify(outbox),
    JSON.stringify(input.counts ? [input.counts] : []),
    ...(language ? [state.language] : []),
  ]);
  if ((result?.written ?? 0) === 0) {
    throw new BotwireError(
      'BW_ERR_STATE_CONFLICT',
      'the conversation state changed while this turn ran',
    );
  }
  return { state, version: previous.version + 1, recentTurns: recent, outbox };
}

/**
 * A batch of plain updates, one JSON array parameter so the text never varies. Each row is found
 * through the primary key (the lateral `limit 1` look-up), then updated by its `ctid`: joined
 * plainly, the planner, which cannot know how few rows the parameter holds, hashes it and scans
 * the whole table whenever the table is small (up to some thousand conversations, and more once
 * updates leave dead rows), so a batch of three cost as much as reading every conversation. A row
 * that another transaction changes meanwhile has a new `ctid`, so it is not written and the turn
 * ends as a conflict (retried), as when its version moved. A table of a few pages is still
 * scanned, which costs a handful of buffers. $2 holds the turns' analytics counts, added for the
 * rows written.
 */
export const SAVE_BATCH = prepared(
  'flow_update_states',
  `with written as (
     update conversation_state s
     set state = v.state, version = v.version + 1, recent_turns = v.recent, outbox = v.outbox,
         updated_at = now()
     from jsonb_to_recordset($1::jsonb) as v (id uuid, version integer, state jsonb, recent jsonb, outbox jsonb),
       lateral (select c.ctid from conversation_state c where c.conversation_id = v.id limit 1) found
     where s.ctid = found.ctid and s.version = v.version
     returning s.conversation_id
   ),
   ${rollupCtes('$2', 'written')}
   select conversation_id from written`,
);

type SaveInput = Parameters<typeof saveState>[1];

/**
 * `saveState` by group commit (`shared/batcher.ts`): the plain state updates of turns that end in
 * the same turn of the event loop are written by one multi-row UPDATE, one commit, each row still
 * guarded by its own version; a row whose version moved fails only its own turn with
 * `BW_ERR_STATE_CONFLICT`. A conversation's first write and a change of the user's language go
 * alone through `saveState`. No two items of a batch are the same conversation: one
 * conversation's turns never overlap in a process.
 */
export function batchedSaveState(db: Knex): (input: SaveInput) => Promise<StoredState> {
  const batcher = new Batcher<SaveInput & { recent: string[] }, boolean>(async (items) => {
    const written = await runPrepared<{ conversation_id: string }>(db, SAVE_BATCH, [
      JSON.stringify(
        items.map((item) => ({
          id: item.conversationId,
          version: item.previous.version,
          state: item.state,
          recent: item.recent,
          outbox: item.outbox ?? null,
        })),
      ),
      JSON.stringify(items.flatMap((item) => (item.counts ? [item.counts] : []))),
    ]);
    const ids = new Set(written.map((r) => r.conversation_id));
    return items.map((item) => ids.has(item.conversationId));
  });
  return async (input) => {
    const { previous, state } = input;
    const languageChanged = state.language && state.language !== previous.state.language;
    if (previous.version === 0 || languageChanged) return saveState(db, input);
    const recent = [...previous.recentTurns, input.turnId].slice(-RECENT_TURNS);
    if (!(await batcher.add({ ...input, recent }))) {
      throw new BotwireError(
        'BW_ERR_STATE_CONFLICT',
        'the conversation state changed while this turn ran',
      );
    }
    return { state, version: previous.version + 1, recentTurns: recent, outbox: input.outbox };
  };
}
