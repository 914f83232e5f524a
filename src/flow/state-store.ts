/**
 * Conversation state in `conversation_state`, written with optimistic concurrency: a write names
 * the version it read and fails if another write came first. With one reader per partition that
 * should not happen; if it does (a stalled process whose lease passed on), the turn is retried
 * on the fresh state instead of overwriting it.
 */
import type { Knex } from '../shared/db.ts';
import { Batcher } from '../shared/batcher.ts';
import { BotwireError } from '../shared/errors.ts';
import { newConversation, type ConversationState } from './engine/types.ts';

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

export async function loadState(db: Knex, conversationId: string): Promise<StoredState> {
  const row: Row | undefined = await db('conversation_state')
    .where({ conversation_id: conversationId })
    .first('state', 'version', 'recent_turns', 'outbox');
  if (!row) return { state: newConversation(), version: 0, recentTurns: [], outbox: null };
  return {
    state: row.state,
    version: row.version,
    recentTurns: row.recent_turns,
    outbox: row.outbox,
  };
}

/**
 * Writes the state after a turn, if nobody wrote since `previous` was read; records the turn id
 * and what it published. The user's chosen language goes onto the conversation in the same
 * statement. One statement, so one round trip and atomic without BEGIN and COMMIT.
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
  },
): Promise<StoredState> {
  const { appId, conversationId, previous, state, turnId, outbox } = input;
  const recent = [...previous.recentTurns, turnId].slice(-RECENT_TURNS);
  const write =
    previous.version === 0
      ? `insert into conversation_state (conversation_id, app_id, state, version, recent_turns, outbox)
         values (:conversationId, :appId, cast(:state as jsonb), 1, cast(:recent as jsonb), cast(:outbox as jsonb))
         on conflict (conversation_id) do nothing
         returning version`
      : `update conversation_state
         set state = cast(:state as jsonb), version = :version + 1, recent_turns = cast(:recent as jsonb),
             outbox = cast(:outbox as jsonb), updated_at = now()
         where conversation_id = :conversationId and version = :version
         returning version`;
  const language = state.language && state.language !== previous.state.language;
  const sql = language
    ? `with s as (${write}),
       l as (update conversations set language = :language
             where id = :conversationId and exists (select 1 from s))
       select count(*)::int as written from s`
    : `with s as (${write}) select count(*)::int as written from s`;
  const result: { rows: { written: number }[] } = await db.raw(sql, {
    conversationId,
    appId,
    state: JSON.stringify(state),
    recent: JSON.stringify(recent),
    outbox: JSON.stringify(outbox),
    version: previous.version,
    ...(language ? { language: state.language } : {}),
  });
  if ((result.rows[0]?.written ?? 0) === 0) {
    throw new BotwireError(
      'BW_ERR_STATE_CONFLICT',
      'the conversation state changed while this turn ran',
    );
  }
  return { state, version: previous.version + 1, recentTurns: recent, outbox };
}

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
    const values = items
      .map(
        () =>
          '(cast(? as uuid), cast(? as integer), cast(? as jsonb), cast(? as jsonb), cast(? as jsonb))',
      )
      .join(', ');
    const result: { rows: { conversation_id: string }[] } = await db.raw(
      `update conversation_state s
       set state = v.state, version = v.version + 1, recent_turns = v.recent,
           outbox = v.outbox, updated_at = now()
       from (values ${values}) as v (id, version, state, recent, outbox)
       where s.conversation_id = v.id and s.version = v.version
       returning s.conversation_id`,
      items.flatMap((item) => [
        item.conversationId,
        item.previous.version,
        JSON.stringify(item.state),
        JSON.stringify(item.recent),
        JSON.stringify(item.outbox),
      ]),
    );
    const written = new Set(result.rows.map((r) => r.conversation_id));
    return items.map((item) => written.has(item.conversationId));
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
