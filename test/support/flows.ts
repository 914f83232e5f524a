/** Flows several tests use. */

/**
 * A question-answer bot: every message is a question answered from `collection` with `reply`
 * (`A: <answer>` by default).
 */
export function faqFlow(
  collection: string,
  k: number,
  reply = 'A: {{answer}}',
): Record<string, unknown> {
  return {
    version: 1,
    start: 'ask',
    states: {
      ask: { wait: { store: 'question' }, next: 'answer' },
      answer: {
        actions: [
          { answer_from: { collection, query: '{{question}}', k } },
          { send: { text: reply } },
        ],
        next: 'ask',
      },
    },
  };
}
