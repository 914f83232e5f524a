/** Flows several tests use. */

/** Every message is an answer: the start state waits at once, then echoes and waits again. */
export const ECHO_FLOW = {
  version: 1,
  start: 'listen',
  states: {
    listen: { wait: { store: 'said' }, next: 'echo' },
    echo: { actions: [{ send: { text: 'echo: {{said}}' } }], next: 'listen' },
  },
};

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
