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

/** What differs between the help desks the tests use. */
export interface HelpDeskOptions {
  /** The team set before the handoff, and its queue. @defaultValue `billing` */
  team?: string;
  /** What the handoff step says. @defaultValue `A person from {{team}} will answer you.` */
  message?: string;
  /**
   * Where the conversation goes when nobody takes it: `sorry` (a state that says so and goes
   * back to the menu) or straight back to `menu`. @defaultValue `sorry`
   */
  fallback?: 'sorry' | 'menu';
  /** What `survey` asks. @defaultValue `How did we do?` */
  survey?: string;
  /**
   * After the survey's answer: `thanks` (`Thanks: <answer>.`, and the conversation ends) or back to
   * `menu`. @defaultValue `thanks`
   */
  afterSurvey?: 'thanks' | 'menu';
}

/**
 * A help desk with a handoff: `menu` waits for input and `help` leads to `human`, which hands the
 * conversation to a person of the team (queue of the same name). `survey`, reached from no other
 * state, is where an agent hands back.
 */
export function helpFlow(options: HelpDeskOptions = {}): Record<string, unknown> {
  const {
    team = 'billing',
    message = 'A person from {{team}} will answer you.',
    fallback = 'sorry',
    survey = 'How did we do?',
    afterSurvey = 'thanks',
  } = options;
  return {
    version: 1,
    start: 'menu',
    states: {
      menu: {
        actions: [{ send: { text: 'Menu: say help for a person.' } }],
        wait: { store: 'pick' },
        transitions: [{ when: { '==': [{ var: 'pick' }, 'help'] }, to: 'human' }, { to: 'menu' }],
      },
      human: {
        actions: [{ set: { team } }, { handoff: { message, queue: team, fallback } }],
      },
      ...(fallback === 'sorry'
        ? {
            sorry: {
              actions: [{ send: { text: 'Nobody is free; back to the bot.' } }],
              next: 'menu',
            },
          }
        : {}),
      survey: {
        actions: [{ send: { text: survey } }],
        wait: { store: 'rating' },
        next: afterSurvey,
      },
      ...(afterSurvey === 'thanks'
        ? { thanks: { actions: [{ send: { text: 'Thanks: {{rating}}.' } }], end: true } }
        : {}),
    },
  };
}

/**
 * The default help desk: queue `billing`, `A person from billing will answer you.`, fallback
 * `sorry`; handed back at `survey`, it asks `How did we do?`, and the answer is thanked
 * (`Thanks: <answer>.`) and ends the conversation.
 */
export const HELP_FLOW = helpFlow();

/**
 * A bike shop's menu: `greeting` with two buttons, Opening hours (answered `hours`) and Book a
 * repair (answered `book`), each an end.
 */
export function shopFlow(texts: { greeting?: string; hours?: string; book?: string } = {}) {
  const {
    greeting = 'Hi! What do you need?',
    hours = 'We are open 9 to 5.',
    book = 'Call us to book.',
  } = texts;
  return {
    version: 1,
    start: 'welcome',
    states: {
      welcome: {
        actions: [
          {
            send: {
              text: greeting,
              buttons: [
                { id: 'hours', title: 'Opening hours' },
                { id: 'book', title: 'Book a repair' },
              ],
            },
          },
        ],
        wait: { store: 'choice', expect: 'choice' },
        transitions: [
          { when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'hours' },
          { to: 'book' },
        ],
      },
      hours: { actions: [{ send: { text: hours } }], end: true },
      book: { actions: [{ send: { text: book } }], end: true },
    },
  };
}
