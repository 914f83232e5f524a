/**
 * A test chat's conversation as a conversation test: each thing the operator said or pressed is a
 * step, and each reply of the bot to it an expectation of its text (`text_equals`) and options
 * (`buttons`), at its place; the last step also expects where the conversation is now (its state,
 * or its end), or that it started a handoff, where the test stops (`stepsOfTranscript`).
 */
import type { Knex } from '../../shared/db.ts';
import type {
  ConversationTest,
  Expectation,
  TestStep,
} from '../../shared/flows/conversation-test-types.ts';

interface Row {
  direction: 'in' | 'out';
  message_type: string;
  body: Record<string, unknown>;
  sent_by: string | null;
  turn_id: string | null;
  created_at: Date;
}

/** Rows read of one chat: more than a test's 200 steps and their replies need. */
const MAX_ROWS = 2000;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function optionTitles(row: Row): string[] | undefined {
  if (row.message_type === 'button' && Array.isArray(row.body.buttons)) {
    return (row.body.buttons as { title?: unknown }[]).map((b) => str(b.title) ?? '');
  }
  if (row.message_type === 'option_list' && Array.isArray(row.body.sections)) {
    return (row.body.sections as { rows?: { title?: unknown }[] }[]).flatMap((s) =>
      (s.rows ?? []).map((r) => str(r.title) ?? ''),
    );
  }
  return undefined;
}

function replyText(row: Row): string | undefined {
  if (['text', 'button', 'option_list'].includes(row.message_type)) return str(row.body.text);
  if (['image', 'document'].includes(row.message_type)) return str(row.body.caption) ?? '';
  return undefined;
}

/**
 * The steps of a transcript (rows in order). The last step expects where the conversation is
 * (`end`, when known). A handoff that started at `handoffAt` ends the test there: its step keeps
 * the replies of the turn that opened it and expects `handoff`; what came after (a person's words,
 * the bot's once handed back) is not the bot's answer to a step, and a test cannot end a handoff.
 */
export function stepsOfTranscript(
  rows: readonly Row[],
  end: { state: string | null; ended: boolean } | undefined,
  handoffAt?: Date,
): TestStep[] {
  const steps: TestStep[] = [];
  let replies = 0;
  let stepTurn: string | null = null;
  for (const row of rows) {
    const afterHandoff = handoffAt !== undefined && row.created_at >= handoffAt;
    if (row.direction === 'in') {
      if (afterHandoff) break;
      if (row.message_type === 'interactive_reply' && str(row.body.choice_id)) {
        steps.push({ press: str(row.body.choice_id)!, expect: [] });
      } else if (row.message_type === 'text' && str(row.body.text)?.trim()) {
        steps.push({ say: str(row.body.text)!, expect: [] });
      } else continue;
      replies = 0;
      stepTurn = row.turn_id;
      continue;
    }
    const step = steps[steps.length - 1];
    if (!step || row.sent_by !== null) continue;
    if (afterHandoff && row.turn_id !== stepTurn) continue;
    const text = replyText(row);
    if (text === undefined) continue;
    const at = replies;
    replies += 1;
    step.expect!.push({ text_equals: text, reply: at });
    const titles = optionTitles(row);
    if (titles) step.expect!.push({ buttons: titles, reply: at });
  }
  const last = steps[steps.length - 1];
  if (last && handoffAt !== undefined) last.expect!.push({ handoff: true });
  else if (last && end) {
    const where: Expectation =
      end.ended || end.state === null ? { ended: true } : { state: end.state };
    last.expect!.push(where);
  }
  for (const step of steps) if (step.expect!.length === 0) step.expect = [{ replies: 0 }];
  return steps;
}

/**
 * The test made of test chat `chatId` of bot `appId`, or undefined when the chat has no
 * conversation yet (nothing was said).
 */
export async function testOfChat(
  db: Knex,
  appId: string,
  chatId: string,
  name: string,
): Promise<ConversationTest | undefined> {
  const conversation: { id: string; state: Record<string, unknown> | null } | undefined = await db(
    'conversations as c',
  )
    .join('channels as ch', 'ch.id', 'c.channel_id')
    .where({ 'ch.app_id': appId, 'ch.type': 'console', 'c.chat_id': chatId })
    .leftJoin('conversation_state as s', 's.conversation_id', 'c.id')
    .first('c.id', 's.state');
  if (!conversation) return undefined;
  const rows: Row[] = await db('messages')
    .where({ conversation_id: conversation.id })
    .whereNot({ message_type: 'note' })
    .orderBy('id')
    .limit(MAX_ROWS)
    .select('direction', 'message_type', 'body', 'sent_by', 'turn_id', 'created_at');
  const handoff: { created_at: Date } | undefined = await db('handoffs')
    .where({ conversation_id: conversation.id })
    .orderBy('created_at')
    .first('created_at');
  const state = conversation.state;
  const end = state ? { state: str(state.state) ?? null, ended: state.ended === true } : undefined;
  const steps = stepsOfTranscript(rows, end, handoff?.created_at);
  if (steps.length === 0) return undefined;
  return { name, description: `Saved from test chat ${chatId}.`, steps };
}
