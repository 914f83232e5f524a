/**
 * The engine's rule for free text matched by meaning (`src/flow/engine/meaning.ts`), given the
 * scores the flow component computes: a clear best option is taken, a close or weak one asks
 * again, exact titles and presses win at once, intents route transitions, and global intents act
 * from any wait. The scores here are given; `test/flow-understanding.test.ts` makes them with the
 * real model.
 */
import { expect } from 'chai';
import { runTurn } from '../src/flow/engine/run-turn.ts';
import type { MeaningScores } from '../src/flow/engine/meaning.ts';
import type { ConversationState, InputEvent, TurnOptions } from '../src/flow/engine/types.ts';
import type { Flow } from '../src/shared/flows/types.ts';

const FLOW = {
  version: 1,
  start: 'menu',
  intents: [
    {
      name: 'human',
      examples: ['talk to a person'],
      global: { handoff: { message: 'One moment.' } },
    },
    { name: 'hours', examples: ['when are you open'], global: { to: 'hours' } },
    { name: 'refund', examples: ['I want my money back'] },
  ],
  states: {
    menu: {
      actions: [
        {
          send: {
            text: 'How can I help?',
            buttons: [
              { id: 'book', title: 'Book a repair', examples: ['fix my bike'] },
              { id: 'ask', title: 'Ask a question' },
            ],
          },
        },
      ],
      wait: { store: 'topic', expect: 'choice', retry_prompt: 'Pick one, please.' },
      transitions: [
        { when: { '==': [{ var: 'topic' }, 'book'] }, to: 'bikes' },
        { to: 'question' },
      ],
    },
    bikes: {
      actions: [{ send: { text: 'How many bikes?' } }],
      wait: { store: 'bikes', expect: 'number' },
      next: 'note',
    },
    note: {
      actions: [{ send: { text: 'Anything else we should know?' } }],
      wait: { store: 'note', expect: 'text' },
      transitions: [{ when: { intent: 'refund' }, to: 'refund' }, { to: 'done' }],
    },
    question: { actions: [{ send: { text: 'Ask away.' } }], wait: { store: 'q' }, next: 'menu' },
    hours: { actions: [{ send: { text: 'Open 9 to 6.' } }], next: 'menu' },
    refund: { actions: [{ send: { text: 'Refunds: see our policy.' } }], end: true },
    done: { actions: [{ send: { text: 'See you!' } }], end: true },
  },
} as unknown as Flow;

const OPTIONS: TurnOptions = {
  newRequestId: () => 'r1',
  matching: { minScore: 0.5, margin: 0.14 },
  now: '2026-01-01T00:00:00.000Z',
};

const waitingIn = (state: string, vars: Record<string, unknown> = {}): ConversationState => ({
  state,
  vars,
  awaiting: { kind: 'input', state, retries: 0 },
});

const said = (text: string, meaning?: MeaningScores): InputEvent => ({
  type: 'input',
  message_type: 'text',
  text,
  ...(meaning ? { meaning } : {}),
});

const texts = (result: ReturnType<typeof runTurn>) =>
  result.outputs.map((o) => ('text' in o ? o.text : o.message_type));

const options = (book: number, ask: number) => [
  { id: 'book', score: book },
  { id: 'ask', score: ask },
];
const intents = (human = 0.2, hours = 0.2, refund = 0.2) => [
  { name: 'human', score: human },
  { name: 'hours', score: hours },
  { name: 'refund', score: refund },
];

describe('flow engine: free text matched by meaning', () => {
  it('when the best option is above min_score and ahead by the margin, then it is taken and the match is reported', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said("I'd like to get my bike fixed", { options: options(0.8, 0.4), intents: intents() }),
      OPTIONS,
    );
    expect(result.state.vars.topic).to.equal('book');
    expect(result.state.state).to.equal('bikes');
    expect(result.understood).to.deep.equal([
      { kind: 'option', name: 'book', score: 0.8, state: 'menu' },
    ]);
  });

  it('when the two best options are closer than the margin, then the bot asks again and reports nothing', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said('a repair question', { options: options(0.7, 0.6), intents: intents() }),
      OPTIONS,
    );
    expect(result.state.awaiting).to.deep.equal({ kind: 'input', state: 'menu', retries: 1 });
    expect(texts(result)).to.deep.equal(['Pick one, please.']);
    expect(result.understood).to.equal(undefined);
  });

  it('when the best option is under min_score, then the bot asks again', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said('asdfgh', { options: options(0.45, 0.1), intents: intents() }),
      OPTIONS,
    );
    expect(result.state.awaiting).to.include({ state: 'menu', retries: 1 });
  });

  it('when the flow sets its own matching, then its thresholds apply', () => {
    const strict = { ...FLOW, matching: { min_score: 0.9 } } as Flow;
    const result = runTurn(
      strict,
      waitingIn('menu'),
      said('fix it', { options: options(0.8, 0.4), intents: intents() }),
      OPTIONS,
    );
    expect(result.state.awaiting).to.include({ state: 'menu', retries: 1 });
  });

  it('when the text has no words (an emoji), then it is not matched whatever the scores', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said('👍', { options: options(0.9, 0.1), intents: intents(0.9) }),
      OPTIONS,
    );
    expect(result.state.awaiting).to.include({ state: 'menu', retries: 1 });
    expect(result.handoff).to.equal(undefined);
  });

  it('when a title is typed exactly, then it wins at once, whatever the scores say', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said('ask a question', { options: options(0.9, 0.1), intents: intents(0.95) }),
      OPTIONS,
    );
    expect(result.state.vars.topic).to.equal('ask');
    expect(result.handoff).to.equal(undefined);
    expect(result.understood).to.equal(undefined);
  });

  it('when a global intent with a handoff matches in a deep state, then the handoff starts there with that state as its fallback', () => {
    const result = runTurn(
      FLOW,
      waitingIn('note', { topic: 'book', bikes: 2 }),
      said('talk to a person', { intents: intents(0.9) }),
      OPTIONS,
    );
    expect(result.handoff).to.deep.include({ reason: 'intent', fallback: 'note' });
    expect(texts(result)).to.deep.equal(['One moment.']);
    expect(result.state.awaiting).to.deep.equal({ kind: 'input', state: 'note', retries: 0 });
    expect(result.state.vars).to.deep.equal({ topic: 'book', bikes: 2 });
    expect(result.understood).to.deep.equal([
      { kind: 'intent', name: 'human', score: 0.9, state: 'note' },
    ]);
  });

  it('when a global intent with a state matches, then that state is entered and the variables are kept', () => {
    const result = runTurn(
      FLOW,
      waitingIn('bikes', { topic: 'book' }),
      said('when are you open', { intents: intents(0.2, 0.9) }),
      OPTIONS,
    );
    expect(texts(result)).to.deep.equal(['Open 9 to 6.', 'How can I help?']);
    expect(result.state.awaiting).to.deep.equal({ kind: 'input', state: 'menu', retries: 0 });
    expect(result.state.vars).to.deep.equal({ topic: 'book' });
  });

  it("when a new conversation's first message means a global intent with a handoff, then the handoff starts at once, without the greeting, with start as its fallback", () => {
    const result = runTurn(
      FLOW,
      { state: null, vars: {} },
      said('I need to talk to a person', { intents: intents(0.9) }),
      OPTIONS,
    );
    expect(result.handoff).to.deep.include({ reason: 'intent', fallback: 'menu' });
    expect(texts(result)).to.deep.equal(['One moment.']);
    expect(result.state).to.deep.include({ state: 'menu', vars: {} });
    expect(result.understood).to.deep.equal([
      { kind: 'intent', name: 'human', score: 0.9, state: 'menu' },
    ]);
  });

  it("when an ended conversation's first message means a global intent with a state, then it starts over in that state (variables cleared); an intent that is not global, or not clear, gets the greeting", () => {
    const ended: ConversationState = { state: 'done', vars: { topic: 'book' }, ended: true };
    const hours = runTurn(
      FLOW,
      ended,
      said('when are you open', { intents: intents(0.2, 0.9) }),
      OPTIONS,
    );
    expect(texts(hours)).to.deep.equal(['Open 9 to 6.', 'How can I help?']);
    expect(hours.state.vars).to.deep.equal({});
    expect(hours.state.awaiting).to.deep.equal({ kind: 'input', state: 'menu', retries: 0 });
    for (const scores of [intents(0.2, 0.2, 0.9), intents(0.7, 0.65)]) {
      const greeted = runTurn(FLOW, ended, said('hello there', { intents: scores }), OPTIONS);
      expect(texts(greeted)).to.deep.equal(['How can I help?']);
      expect(greeted.handoff).to.equal(undefined);
    }
  });

  it('when a global intent is as close as an option of the awaited choice, then neither wins and the bot asks again', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said('a person to fix my bike', { options: options(0.75, 0.3), intents: intents(0.8) }),
      OPTIONS,
    );
    expect(result.handoff).to.equal(undefined);
    expect(result.state.awaiting).to.include({ state: 'menu', retries: 1 });
  });

  it("when the LLM chose an option the scores left unclear, then it is taken and reported as the LLM's pick with its score", () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said('a repair question', {
        options: options(0.7, 0.6),
        intents: intents(),
        chosen: { kind: 'option', name: 'book' },
      }),
      OPTIONS,
    );
    expect(result.state.vars.topic).to.equal('book');
    expect(result.understood).to.deep.equal([
      { kind: 'option', name: 'book', score: 0.7, state: 'menu', by: 'llm' },
    ]);
  });

  it('when the LLM chose a global intent over a close option, then the intent acts from the wait', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      said('a person to fix my bike', {
        options: options(0.75, 0.3),
        intents: intents(0.8),
        chosen: { kind: 'intent', name: 'human' },
      }),
      OPTIONS,
    );
    expect(result.handoff).to.include({ reason: 'intent', fallback: 'menu' });
    expect(result.understood).to.deep.equal([
      { kind: 'intent', name: 'human', score: 0.8, state: 'menu', by: 'llm' },
    ]);
  });

  it('when the LLM said the text means none, then nothing matches, not even what the scores would pick; an option the wait does not offer matches nothing either', () => {
    const none = runTurn(
      FLOW,
      waitingIn('menu'),
      said('hmm', { options: options(0.9, 0.1), intents: intents(), chosen: 'none' }),
      OPTIONS,
    );
    expect(none.state.awaiting).to.include({ state: 'menu', retries: 1 });
    expect(none.understood).to.equal(undefined);
    // An option it named that this wait does not offer is no match here either.
    const elsewhere = runTurn(
      FLOW,
      waitingIn('menu'),
      said('something', { options: options(0.9, 0.1), chosen: { kind: 'option', name: 'gone' } }),
      OPTIONS,
    );
    expect(elsewhere.state.awaiting).to.include({ state: 'menu', retries: 1 });
  });

  it('when the text is closer to small talk than a global intent by less than the margin, then the intent does not act; an ordinary intent still routes', () => {
    const ended: ConversationState = { state: null, vars: {} };
    const greeting = runTurn(
      FLOW,
      ended,
      said('hi there', { intents: intents(0.6), small_talk: 0.9 }),
      OPTIONS,
    );
    expect(greeting.handoff).to.equal(undefined);
    expect(texts(greeting)).to.deep.equal(['How can I help?']);
    const clear = runTurn(
      FLOW,
      ended,
      said('a person please', { intents: intents(0.9), small_talk: 0.5 }),
      OPTIONS,
    );
    expect(clear.handoff).to.include({ reason: 'intent' });
    // "refund" is not global: small talk is not its rival.
    const refund = runTurn(
      FLOW,
      waitingIn('note'),
      said('yes', { intents: intents(0.2, 0.2, 0.7), small_talk: 1 }),
      OPTIONS,
    );
    expect(refund.state.state).to.equal('refund');
  });

  it('when a button is pressed, then a global intent does not act', () => {
    const result = runTurn(
      FLOW,
      waitingIn('menu'),
      {
        type: 'input',
        message_type: 'interactive_reply',
        choice_id: 'book',
        meaning: { intents: intents(0.99) },
      },
      OPTIONS,
    );
    expect(result.handoff).to.equal(undefined);
    expect(result.state.vars.topic).to.equal('book');
  });

  it('when a transition tests {"intent": name}, then the understood intent routes the answer, and another one falls through', () => {
    const refund = runTurn(
      FLOW,
      waitingIn('note'),
      said('actually I would like my money back', { intents: intents(0.2, 0.2, 0.8) }),
      OPTIONS,
    );
    expect(texts(refund)).to.deep.equal(['Refunds: see our policy.']);
    const other = runTurn(
      FLOW,
      waitingIn('note'),
      said('the back wheel squeaks', { intents: intents(0.2, 0.2, 0.3) }),
      OPTIONS,
    );
    expect(texts(other)).to.deep.equal(['See you!']);
    expect(other.state.vars.note).to.equal('the back wheel squeaks');
  });

  it('when the intent leads to a state with an HTTP step, then after its result the intent and the input still route and render', () => {
    const flow = {
      ...FLOW,
      states: {
        ...FLOW.states,
        note: {
          wait: { store: 'note', expect: 'text' },
          transitions: [{ when: { intent: 'refund' }, to: 'lookup' }, { to: 'done' }],
        },
        lookup: {
          actions: [
            { http: { method: 'GET', url: 'https://shop.example/orders', store: 'order' } },
          ],
          transitions: [{ when: { intent: 'refund' }, to: 'refund_ok' }, { to: 'done' }],
        },
        refund_ok: { actions: [{ send: { text: 'Refund for: {{input}}' } }], end: true },
      },
    } as unknown as Flow;
    const first = runTurn(
      flow,
      waitingIn('note'),
      said('I would like my money back', { intents: intents(0.2, 0.2, 0.8) }),
      OPTIONS,
    );
    expect(first.effects.map((e) => e.kind)).to.deep.equal(['http']);
    const after = runTurn(
      flow,
      first.state,
      { type: 'effect_result', request_id: 'r1', ok: true, value: { status: 200, body: {} } },
      OPTIONS,
    );
    expect(texts(after)).to.deep.equal(['Refund for: I would like my money back']);
    expect(after.state.awaiting).to.equal(undefined);
  });
});
