/**
 * Scripted users of a small menu flow whose analytics are known exactly (docs/analytics.md): who
 * finishes, who gives up where, who is asked again, who is handed to a person. The in-process
 * pipeline test and the fault test (channel killed mid-way) play them and expect these figures.
 */

export const FLOW = {
  version: 1,
  start: 'welcome',
  states: {
    welcome: {
      actions: [
        {
          send: {
            text: 'Hi! Pick one.',
            buttons: [
              { id: 'hours', title: 'Opening hours' },
              { id: 'book', title: 'Book a repair' },
            ],
          },
        },
      ],
      wait: {
        store: 'choice',
        expect: 'choice',
        retry_prompt: 'Please pick an option.',
        max_retries: 1,
        on_fail: 'human',
      },
      transitions: [{ when: { '==': [{ var: 'choice' }, 'hours'] }, to: 'hours' }, { to: 'book' }],
    },
    hours: {
      actions: [{ send: { text: 'Open 9 to 5.' } }, { send: { text: 'See you soon.' } }],
      end: true,
    },
    book: {
      actions: [{ send: { text: 'How many bikes?' } }],
      wait: { store: 'bikes', expect: 'number', retry_prompt: 'A number, please.' },
      next: 'booked',
    },
    booked: { actions: [{ send: { text: 'Booked {{bikes}}.' } }], end: true },
    human: { actions: [{ handoff: { message: 'A person will help.', fallback: 'welcome' } }] },
  },
};

/** Each script: what one user says, and the bot's last reply to wait for after each message. */
export const SCRIPTS: Record<string, [string, string][]> = {
  // Opening hours, done: 3 users.
  hours: [
    ['hi', 'Hi! Pick one.'],
    ['Opening hours', 'See you soon.'],
  ],
  // A booking with one answer asked again: 2 users.
  booked: [
    ['hi', 'Hi! Pick one.'],
    ['Book a repair', 'How many bikes?'],
    ['some', 'A number, please.'],
    ['2', 'Booked 2.'],
  ],
  // Gave up at the number of bikes: 2 users.
  left_at_book: [
    ['hi', 'Hi! Pick one.'],
    ['Book a repair', 'How many bikes?'],
  ],
  // Gave up at the menu: 2 users.
  left_at_menu: [['hi', 'Hi! Pick one.']],
  // Not understood twice: the menu's on_fail hands over to a person: 1 user.
  handed_off: [
    ['hi', 'Hi! Pick one.'],
    ['blah', 'Please pick an option.'],
    ['blah blah', 'A person will help.'],
  ],
};
export const USERS: [string, number][] = [
  ['hours', 3],
  ['booked', 2],
  ['left_at_book', 2],
  ['left_at_menu', 2],
  ['handed_off', 1],
];

export const EXPECTED_TOTALS = {
  conversations: 10,
  new_users: 10,
  active_users: 10,
  users: 10,
  returning_users: 0,
  // 2 + 4 + 2 + 1 + 3 messages per user of each script.
  messages_in: 3 * 2 + 2 * 4 + 2 * 2 + 2 * 1 + 1 * 3,
  // Each message is answered by one, the handed-off user's second "blah" by the handoff's, and
  // opening hours by two.
  messages_out: 3 * 3 + 2 * 4 + 2 * 2 + 2 * 1 + 1 * 3,
  completed: 5,
  reasks: 3,
  fallbacks: 1,
  handoffs: 1,
  unanswered: 0,
};

export const EXPECTED_STATES = [
  {
    state: 'book',
    entered: 4,
    left_forward: 2,
    ended: 0,
    handoffs: 0,
    reasks: 2,
    fallbacks: 0,
    abandoned: 2,
  },
  {
    state: 'booked',
    entered: 2,
    left_forward: 0,
    ended: 2,
    handoffs: 0,
    reasks: 0,
    fallbacks: 0,
    abandoned: 0,
  },
  {
    state: 'hours',
    entered: 3,
    left_forward: 0,
    ended: 3,
    handoffs: 0,
    reasks: 0,
    fallbacks: 0,
    abandoned: 0,
  },
  {
    state: 'human',
    entered: 1,
    left_forward: 0,
    ended: 0,
    handoffs: 1,
    reasks: 0,
    fallbacks: 0,
    abandoned: 0,
  },
  {
    state: 'welcome',
    entered: 10,
    left_forward: 8,
    ended: 0,
    handoffs: 0,
    reasks: 1,
    fallbacks: 1,
    abandoned: 2,
  },
];

/** `EXPECTED_TOTALS` for `times` plays of every user, as the API answers for a range ending today. */
export function totalsTimes(times: number): Record<string, number> {
  return Object.fromEntries(Object.entries(EXPECTED_TOTALS).map(([k, v]) => [k, v * times]));
}

/** `EXPECTED_STATES` for `times` plays of every user. */
export function statesTimes(times: number): Record<string, number | string>[] {
  return EXPECTED_STATES.map((s) =>
    Object.fromEntries(
      Object.entries(s).map(([k, v]) => [k, typeof v === 'number' ? v * times : v]),
    ),
  );
}
