/**
 * The transcript's record of what a turn understood by meaning: one `note` row per option or
 * intent matched (never sent to the user), with its score, so an operator reading a conversation
 * sees why the bot took "I'd like to get my bike fixed" for "Book a repair".
 */
import type { Knex } from '../shared/db.ts';
import type { Understood } from './engine/meaning.ts';

/** A score as shown and stored: three decimals. */
export const roundScore = (score: number): number => Math.round(score * 1000) / 1000;

/**
 * Writes the notes of a turn, once: a redelivered turn finds them written (the outbound
 * uniqueness of conversation, turn and seq).
 */
export async function recordUnderstood(
  db: Knex,
  conversationId: string,
  turnId: string,
  understood: readonly Understood[],
  input: { message?: { message_type: string; text?: string } },
): Promise<void> {
  const said = input.message?.message_type === 'text' ? (input.message.text ?? '') : '';
  const rows = understood.map((u, i) => ({
    seq: `understood.${i}`,
    body: {
      text: `Understood as ${u.kind} "${u.name}" (score ${roundScore(u.score)}) in state "${u.state}".`,
      understood: { ...u, score: roundScore(u.score) },
      said,
    },
  }));
  for (const row of rows) {
    await db.raw(
      `insert into messages (conversation_id, direction, turn_id, seq, message_type, body, status)
       values (?, 'out', ?, ?, 'note', ?::jsonb, 'note')
       on conflict (conversation_id, turn_id, seq) where direction = 'out' do nothing`,
      [conversationId, turnId, row.seq, JSON.stringify(row.body)],
    );
  }
}
