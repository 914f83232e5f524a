/** Flows several tests use. */

/** A question-answer bot: every message is a question answered from `collection` as `A: <answer>`. */
export function faqFlow(collection: string, k: number): Record<string, unknown> {
  return {
    version: 1,
    start: 'ask',
    states: {
      ask: { wait: { store: 'question' }, next: 'answer' },
      answer: {
        actions: [
          { answer_from: { collection, query: '{{question}}', k } },
          { send: { text: 'A: {{answer}}' } },
        ],
        next: 'ask',
      },
    },
  };
}
