/**
 * Conversation state in `conversation_state`, written with optimistic concurrency: a write names
 * the version it read and fails if another write came first. With one reader per partition that
 * should not happen; if it does (a stalled process whose lease passed on), the turn is retried
 * on the fresh state instead of overwriting it.
 */
import type { Knex } from '../shared/db.ts';
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
 * transaction.
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
): Promise<void> {
  const { appId, conversationId, previous, state, turnId, outbox } = input;
  const recent = [...previous.recentTurns, turnId].slice(-RECENT_TURNS);
  await db.transaction(async (trx) => {
    let written: number;
    if (previous.version === 0) {
      const rows: unknown[] = await trx('conversation_state')
        .insert({
          conversation_id: conversationId,
          app_id: appId,
          state,
          version: 1,
          recent_turns: JSON.stringify(recent),
          outbox: JSON.stringify(outbox),
        })
        .onConflict('conversation_id')
        .ignore()
        .returning('version');
      written = rows.length;
    } else {
      written = await trx('conversation_state')
        .where({ conversation_id: conversationId, version: previous.version })
        .update({
          state,
          version: previous.version + 1,
          recent_turns: JSON.stringify(recent),
          outbox: JSON.stringify(outbox),
          updated_at: trx.fn.now(),
        });
    }
    if (written === 0) {
      throw new BotwireError(
        'BW_ERR_STATE_CONFLICT',
        'the conversation state changed while this turn ran',
      );
    }
    if (state.language && state.language !== previous.state.language) {
      await trx('conversations').where({ id: conversationId }).update({ language: state.language });
    }
  });
}
