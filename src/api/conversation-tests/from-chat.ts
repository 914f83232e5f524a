/**
 * A test chat's conversation as a conversation test: each thing the operator said or pressed is a
 * step, and each reply of the bot to it an expectation of its text (`text_equals`) and options
 * (`buttons`), at its place; the last step also expects where the conversation is now (its state,
 * or its end). What a person wrote during a handoff is not the bot's, and is left out.
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
}

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

/** The steps of a transcript (rows in order); the last state, when known, is expected at the end. */
export function stepsOfTranscript(
  rows: readonly Row[],
  end: { state: string | null; ended: boolean } | undefined,
): TestStep[] {
  const steps: TestStep[] = [];
  let replies = 0;
  for (const row of rows) {
    if (row.direction === 'in') {
      if (row.message_type === 'interactive_reply' && str(row.body.choice_id)) {
        steps.push({ press: str(row.body.choice_id)!, expect: [] });
      } else if (row.message_type === 'text' && str(row.body.text)?.trim()) {
        steps.push({ say: str(row.body.text)!, expect: [] });
      } else continue;
      replies = 0;
      continue;
    }
    const step = steps[steps.length - 1];
    if (!step || row.sent_by !== null) continue;
    const text = replyText(row);
    if (text === undefined) continue;
    const at = replies;
    replies += 1;
    step.expect!.push({ text_equals: text, reply: at });
    const titles = optionTitles(row);
    if (titles) step.expect!.push({ buttons: titles, reply: at });
  }
  const last = steps[steps.length - 1];
  if (last && end) {
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
    .select('direction', 'message_type', 'body', 'sent_by');
  const state = conversation.state;
  const handoff = state?.handoff !== undefined && state?.handoff !== null;
  const end =
    state && !handoff
      ? { state: str(state.state) ?? null, ended: state.ended === true }
      : undefined;
  const steps = stepsOfTranscript(rows, end);
  if (steps.length === 0) return undefined;
  return { name, description: `Saved from test chat ${chatId}.`, steps };
}
