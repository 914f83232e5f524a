/**
 * Opting out of broadcasts (docs/outbound.md): a user whose message is exactly a stop word
 * (OPT_OUT_WORDS: "stop", "unsubscribe") is marked opted out of every later broadcast of the bot on
 * that channel; one who writes a start word (OPT_IN_WORDS: "start", and Telegram's "/start" when
 * they start the bot again) is not any more. A Telegram user who blocked the bot is marked when a
 * send is refused with 403 (channel's record of the call, `store.ts`). The message itself goes on
 * to the flow like any other: the bot may answer it.
 */
import type { Knex } from '../shared/db.ts';

export interface OptWords {
  /** Lower case. */
  out: readonly string[];
  /** Lower case. */
  in: readonly string[];
}

/** Whether `text` opts out, back in, or neither. */
export function optChoiceOf(text: string | undefined, words: OptWords): 'out' | 'in' | undefined {
  if (text === undefined || text.length > 32) return undefined;
  const said = text.trim().toLowerCase();
  if (words.out.includes(said)) return 'out';
  if (words.in.includes(said)) return 'in';
  return undefined;
}

/** Records the user's choice on the conversation; a repeat keeps the first opt-out's time. */
export async function recordOptChoice(
  db: Knex,
  conversationId: string,
  choice: 'out' | 'in',
): Promise<void> {
  await db('conversations')
    .where('id', conversationId)
    .update({
      opted_out_at: choice === 'out' ? db.raw('coalesce(opted_out_at, now())') : null,
    });
}
