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

/**
 * A help desk with a handoff: `menu` waits for input and `help` leads to `human`, which hands the
 * conversation to a person (queue `billing`, message `A person from billing will answer you.`,
 * fallback `sorry`, which goes back to the menu). `survey` is where an agent hands back: it asks
 * `How did we do?`, and the answer is thanked (`Thanks: <answer>.`) and ends the conversation.
 */
export const HELP_FLOW = {
  version: 1,
  start: 'menu',
  states: {
    menu: {
      actions: [{ send: { text: 'Menu: say help for a person.' } }],
      wait: { store: 'pick' },
      transitions: [{ when: { '==': [{ var: 'pick' }, 'help'] }, to: 'human' }, { to: 'menu' }],
    },
    human: {
      actions: [
        { set: { team: 'billing' } },
        {
          handoff: {
            message: 'A person from {{team}} will answer you.',
            queue: 'billing',
            fallback: 'sorry',
          },
        },
      ],
    },
    sorry: { actions: [{ send: { text: 'Nobody is free; back to the bot.' } }], next: 'menu' },
    survey: {
      actions: [{ send: { text: 'How did we do?' } }],
      wait: { store: 'rating' },
      next: 'thanks',
    },
    thanks: { actions: [{ send: { text: 'Thanks: {{rating}}.' } }], end: true },
  },
};
