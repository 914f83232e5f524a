/**
 * The transcript's record of what a turn understood and asked (never sent to the user): one `note`
 * row per option or intent matched by meaning, with its score, so an operator reading a
 * conversation sees why the bot took "I'd like to get my bike fixed" for "Book a repair"; and one
 * per call an `llm` step made, with its model, tokens, time and outcome (a step refused before any
 * call, by a budget say, with 0 tokens and its code). The test chat shows them per turn, and in a
 * test chat one more: the turn's trace (`turn-trace.ts`).
 */
import type { Knex } from '../shared/db.ts';
import type { Understood } from './engine/meaning.ts';
import type { LlmCallRecord } from './llm-call.ts';

/** A score as shown and stored: three decimals. */
export const roundScore = (score: number): number => Math.round(score * 1000) / 1000;

export interface TurnNotes {
  understood: readonly Understood[];
  llmCalls: readonly LlmCallRecord[];
  /** The user's text the turn began with ('' for none). */
  said: string;
  /** A test chat's turn trace (`turn-trace.ts`) and its line; absent for everyone else's. */
  trace?: { seq: string; summary: string; body: Record<string, unknown> };
}

function rows(notes: TurnNotes): { seq: string; body: Record<string, unknown> }[] {
  return [
    ...notes.understood.map((u, i) => ({
      seq: `understood.${i}`,
      body: {
        text: `Understood as ${u.kind} "${u.name}" (score ${roundScore(u.score)}${u.by === 'llm' ? ', chosen by the LLM' : ''}) in state "${u.state}".`,
        understood: { ...u, score: roundScore(u.score) },
        said: notes.said,
      },
    })),
    ...notes.llmCalls.map((call, i) => ({
      seq: `llm.${i}`,
      body: {
        text:
          call.tokens === 0 && call.outcome !== 'ok'
            ? `LLM step not made (${call.model}): ${call.outcome}.`
            : `LLM call (${call.model}): ${call.tokens} tokens, ${call.ms} ms, ${call.outcome}.`,
        llm_call: call,
      },
    })),
    ...(notes.trace
      ? [{ seq: notes.trace.seq, body: { text: notes.trace.summary, trace: notes.trace.body } }]
      : []),
  ];
}

/**
 * Writes the notes of a turn in one statement, once: a redelivered turn finds them written (the
 * outbound uniqueness of conversation, turn and seq).
 */
export async function recordTurnNotes(
  db: Knex,
  conversationId: string,
  turnId: string,
  notes: TurnNotes,
): Promise<void> {
  const all = rows(notes);
  if (all.length === 0) return;
  await db.raw(
    `insert into messages (conversation_id, direction, turn_id, seq, message_type, body, status)
     values ${all.map(() => `(?, 'out', ?, ?, 'note', ?::jsonb, 'note')`).join(', ')}
     on conflict (conversation_id, turn_id, seq) where direction = 'out' do nothing`,
    all.flatMap((row) => [conversationId, turnId, row.seq, JSON.stringify(row.body)]),
  );
}
