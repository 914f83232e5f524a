/**
 * The pure flow engine: turns, waits, effects, resets, the loop guard; and templates.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { evaluateCondition, MAX_CAT_CHARS } from '../src/flow/engine/condition.ts';
import { DEFAULT_ERROR_TEXT, runTurn } from '../src/flow/engine/run-turn.ts';
import {
  newConversation,
  type ConversationState,
  type FlowEvent,
  type TurnResult,
} from '../src/flow/engine/types.ts';
import { DEFAULT_FLOW } from '../src/shared/flows/default-flow.ts';
import { render, renderValue } from '../src/shared/flows/template.ts';
import type { Flow, FlowState, Wait } from '../src/shared/flows/types.ts';

const say = (text: string): FlowEvent => ({ type: 'input', text, message_type: 'text' });
const press = (id: string): FlowEvent => ({ type: 'input', choice_id: id, message_type: 'button' });
const result = (request_id: string, value: unknown): FlowEvent => ({
  type: 'effect_result',
  request_id,
  ok: true,
  value,
});

/** A conversation driven turn by turn with request ids r1, r2, ... */
function talk(flow: Flow, resetKeywords?: string[]) {
  let counter = 0;
  let state: ConversationState = newConversation();
  let last: TurnResult | undefined;
  const send = (event: FlowEvent): TurnResult => {
    last = runTurn(flow, state, event, { newRequestId: () => `r${++counter}`, resetKeywords });
    state = last.state;
    return last;
  };
  const texts = (event: FlowEvent): string[] =>
    send(event).outputs.map((o) => ('text' in o ? o.text : `[${o.message_type} ${o.url}]`));
  return { send, texts, state: () => state };
}

function flowOf(states: Record<string, FlowState>, start = Object.keys(states)[0] ?? ''): Flow {
  return { version: 1, start, states };
}

const text = (t: string) => ({ send: { text: t } });

/** A one-question flow: ask, wait, then say what was stored. */
function question(wait: Partial<Wait> & { store?: string }, extra: Partial<FlowState> = {}): Flow {
  return flowOf({
    ask: { actions: [text('Question?')], wait: { store: 'a', ...wait }, next: 'done', ...extra },
    done: { actions: [text('got {{a}}')], end: true },
    failed: { actions: [text('giving up')], end: true },
  });
}

describe('flow templates', () => {
  const vars = { name: 'Ada', n: 3, ok: true, nil: null, user: { city: 'Oslo' }, list: ['x', 'y'] };

  it('when placeholders name values, then strings, numbers, booleans and objects are written in', () => {
    expect(render('{{name}} {{ n }} {{ok}} {{user}} {{list.1}} [{{nil}}]', vars)).to.equal(
      'Ada 3 true {"city":"Oslo"} y []',
    );
  });

  it('when a placeholder is missing or reaches a prototype, then it renders empty', () => {
    const out = render(
      '[{{nope}}][{{user.zip}}][{{__proto__}}][{{user.constructor}}][{{constructor.name}}][{{name.length}}][{{list.prototype}}]',
      vars,
    );
    expect(out).to.equal('[][][][][][][]');
    const parsed = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    expect(render('[{{__proto__.polluted}}][{{polluted}}]', parsed)).to.equal('[][]');
  });

  it('when a placeholder holds code, then nothing is evaluated', () => {
    expect(render('{{ 1+1 }}{{name.toUpperCase()}}{{ process.exit }}', vars)).to.equal('');
    expect(render('{{not a path}}', vars)).to.equal('{{not a path}}');
  });

  it('when a template is exactly one placeholder, then renderValue keeps the type', () => {
    expect(renderValue('{{n}}', vars)).to.equal(3);
    expect(renderValue('{{user}}', vars)).to.deep.equal({ city: 'Oslo' });
    expect(renderValue('{{missing}}', vars)).to.equal(null);
    expect(renderValue('n={{n}}', vars)).to.equal('n=3');
  });
});

describe('flow engine', () => {
  it('when a new conversation sends its first message, then it gets the greeting and the message is not an answer', () => {
    const chat = talk(DEFAULT_FLOW);
    const first = chat.send(say('about'));
    expect(first.outputs.map((o) => o.message_type)).to.deep.equal(['text', 'button']);
    expect(first.state).to.deep.equal({
      state: 'menu',
      vars: {},
      awaiting: { kind: 'input', state: 'menu', retries: 0 },
    });
    expect(chat.texts(press('echo'))).to.deep.equal([
      'Send me anything and I will say it back. Send "menu" to stop.',
    ]);
    expect(chat.texts(say('hello'))).to.deep.equal(['You said: hello']);
    expect(chat.send(say('menu')).outputs[0]?.message_type).to.equal('button');
  });

  it('when the start state waits before saying anything, then the first message is its answer', () => {
    const chat = talk(
      flowOf({
        listen: { wait: { store: 'q' }, next: 'reply' },
        reply: { actions: [text('Q: {{q}}')], next: 'listen' },
      }),
    );
    expect(chat.texts(say('opening hours?'))).to.deep.equal(['Q: opening hours?']);
    expect(chat.state().awaiting).to.deep.equal({ kind: 'input', state: 'listen', retries: 0 });
  });

  it('when a send has media, text and options, then each goes out as its message type in order', () => {
    const send = {
      text: 'Hi {{name}}',
      list: {
        button: 'Open',
        sections: [{ title: 'S', rows: [{ id: 'r1', title: 'Row {{name}}', description: 'd' }] }],
      },
      image: { url: 'https://cdn.example.com/{{name}}.png', caption: 'pic' },
      document: { url: 'https://cdn.example.com/menu.pdf', filename: 'menu.pdf' },
    };
    const flow = flowOf({
      s: {
        actions: [
          { set: { name: 'Bo' } },
          { send },
          { send: { text: 'go', buttons: [{ id: 'b', title: 'B' }] } },
        ],
        end: true,
      },
    });
    expect(talk(flow).send(say('x')).outputs).to.deep.equal([
      { message_type: 'image', url: 'https://cdn.example.com/Bo.png', caption: 'pic' },
      { message_type: 'document', url: 'https://cdn.example.com/menu.pdf', filename: 'menu.pdf' },
      {
        message_type: 'option_list',
        text: 'Hi Bo',
        list: {
          button: 'Open',
          sections: [{ title: 'S', rows: [{ id: 'r1', title: 'Row Bo', description: 'd' }] }],
        },
      },
      { message_type: 'button', text: 'go', buttons: [{ id: 'b', title: 'B' }] },
    ]);
  });

  it('when set runs, then templates, numbers, booleans and null are stored, whole placeholders keeping their type', () => {
    const flow = flowOf({
      s: {
        actions: [
          { set: { n: 2, ok: false, gone: null, who: 'Ada' } },
          { set: { copy: '{{n}}', line: '{{who}} has {{n}}' } },
        ],
        end: true,
      },
    });
    expect(talk(flow).send(say('x')).state.vars).to.deep.equal({
      n: 2,
      ok: false,
      gone: null,
      who: 'Ada',
      copy: 2,
      line: 'Ada has 2',
    });
  });

  it('when a number is expected, then text is refused with the retry prompt and "2,5" is stored as 2.5', () => {
    const chat = talk(question({ expect: 'number', retry_prompt: 'A number, please' }));
    chat.send(say('start'));
    expect(chat.texts(say('two'))).to.deep.equal(['A number, please']);
    expect(chat.state().awaiting).to.deep.equal({ kind: 'input', state: 'ask', retries: 1 });
    expect(chat.texts(say(' 2,5 '))).to.deep.equal(['got 2.5']);
    expect(chat.state().vars).to.deep.equal({ a: 2.5 });
  });

  it('when email, phone and pattern waits get good and bad answers, then only good ones pass', () => {
    const cases: [Partial<Wait>, string, string, unknown][] = [
      [{ expect: 'email' }, 'ada@', ' ada@example.com ', 'ada@example.com'],
      [{ expect: 'phone' }, '12ab', '+47 (22) 12-34.56', '+4722123456'],
      [{ expect: 'text', pattern: '^[A-Z]{2}\\d{4}$' }, 'ab1234', 'AB1234', 'AB1234'],
      [{ expect: 'text' }, '   ', 'fine', 'fine'],
    ];
    for (const [wait, bad, good, stored] of cases) {
      const chat = talk(question(wait));
      chat.send(say('start'));
      expect(chat.send(say(bad)).state.awaiting, `${bad} should be refused`).to.include({
        retries: 1,
      });
      chat.send(say(good));
      expect(chat.state().vars.a).to.equal(stored);
    }
  });

  it('when answers stay invalid past max_retries, then the flow goes to on_fail', () => {
    const chat = talk(question({ expect: 'number', max_retries: 1, on_fail: 'failed' }));
    chat.send(say('start'));
    expect(chat.texts(say('x'))).to.deep.equal(['Please answer with a number.']);
    expect(chat.texts(say('y'))).to.deep.equal(['giving up']);
    expect(chat.state().ended).to.equal(true);
  });

  it('when answers stay invalid and there is no on_fail, then the bot keeps asking', () => {
    const chat = talk(question({ expect: 'number', max_retries: 0 }));
    chat.send(say('start'));
    for (let i = 1; i <= 3; i += 1) {
      expect(chat.texts(say('x'))).to.deep.equal(['Please answer with a number.']);
    }
    expect(chat.state().awaiting).to.deep.equal({ kind: 'input', state: 'ask', retries: 3 });
  });

  it('when a choice is pressed, typed by title, or missed, then the id is stored or the options are sent again', () => {
    const flow = flowOf({
      menu: {
        actions: [
          {
            send: {
              text: 'Pick',
              buttons: [
                { id: 'tea', title: 'Green tea' },
                { id: 'cof', title: 'Coffee' },
              ],
            },
          },
        ],
        wait: { store: 'drink', expect: 'choice' },
        transitions: [{ when: { '==': [{ var: 'input' }, 'tea'] }, to: 'tea' }, { to: 'other' }],
      },
      tea: { actions: [text('tea it is')], next: 'menu' },
      other: { actions: [text('{{drink}} then')], next: 'menu' },
    });
    const chat = talk(flow);
    chat.send(say('hi'));
    const retry = chat.send(say('water'));
    expect(retry.outputs).to.deep.equal([
      {
        message_type: 'button',
        text: 'Please choose one of the options.',
        buttons: [
          { id: 'tea', title: 'Green tea' },
          { id: 'cof', title: 'Coffee' },
        ],
      },
    ]);
    expect(chat.texts(press('tea'))[0]).to.equal('tea it is');
    expect(chat.texts(say('coffee'))[0]).to.equal('cof then');
    expect(chat.send(press('bogus')).state.awaiting).to.include({ retries: 1 });
  });

  it('when transitions have conditions, then the first that holds is taken, and none holding means retry', () => {
    const flow = flowOf({
      age: {
        wait: { store: 'age', expect: 'number', retry_prompt: 'Between 1 and 120?' },
        transitions: [
          { when: { '<': [{ var: 'age' }, 18] }, to: 'minor' },
          {
            when: { and: [{ '>=': [{ var: 'age' }, 18] }, { '<=': [{ var: 'input' }, 120] }] },
            to: 'adult',
          },
        ],
      },
      minor: { actions: [text('minor')], end: true },
      adult: { actions: [text('adult {{age}}')], end: true },
    });
    const chat = talk(flow);
    expect(chat.texts(say('300'))).to.deep.equal(['Between 1 and 120?']);
    expect(chat.texts(say('40'))).to.deep.equal(['adult 40']);
    expect(talk(flow).texts(say('12'))).to.deep.equal(['minor']);
  });

  it('when an unvalidated condition uses an operator off the whitelist or a prototype path, then it is false', () => {
    const flow = flowOf({
      s: {
        transitions: [
          { when: { method: [{ var: 'x' }, 'toString'] } as never, to: 'bad' },
          { to: 'good' },
        ],
      },
      bad: { actions: [text('bad')], end: true },
      good: { actions: [text('good')], end: true },
    });
    expect(talk(flow).texts(say('x'))).to.deep.equal(['good']);
    const proto = flowOf({
      s: {
        actions: [{ set: { name: 'Ada' } }],
        transitions: [{ when: { '!!': { var: 'name.constructor' } }, to: 'bad' }, { to: 'good' }],
      },
      bad: { actions: [text('bad')], end: true },
      good: { actions: [text('good')], end: true },
    });
    expect(talk(proto).texts(say('x'))).to.deep.equal(['good']);
  });

  it('when an http action runs, then it emits one effect, waits, and resumes with the stored result', () => {
    const http = {
      method: 'POST' as const,
      url: 'https://api.example.com/users/{{q}}?x=1',
      headers: { 'X-Name': '{{q}}' },
      body: { name: '{{q}}', n: '{{n}}', fixed: [1, 'a'] },
      store: 'resp',
    };
    const flow = flowOf({
      ask: { actions: [{ set: { n: 7 } }], wait: { store: 'q' }, next: 'call' },
      call: {
        actions: [{ http }, text('id {{resp.body.id}}')],
        transitions: [{ when: { '!!': [{ var: 'resp.error' }] }, to: 'oops' }, { to: 'ok' }],
      },
      ok: { actions: [text('ok')], end: true },
      oops: { actions: [text('oops {{resp.error}}')], end: true },
    });
    const chat = talk(flow);
    const called = chat.send(say('a b/c\r\nX: y'));
    expect(called.outputs).to.deep.equal([]);
    expect(called.effects).to.deep.equal([
      {
        kind: 'http',
        request_id: 'r1',
        method: 'POST',
        url: 'https://api.example.com/users/a%20b%2Fc%0D%0AX%3A%20y?x=1',
        headers: { 'X-Name': 'a b/c X: y' },
        body: { name: 'a b/c\r\nX: y', n: 7, fixed: [1, 'a'] },
        timeout_ms: 5000,
      },
    ]);
    expect(called.state.awaiting).to.deep.equal({
      kind: 'effect',
      request_id: 'r1',
      state: 'call',
      action_index: 0,
      input: 'a b/c\r\nX: y',
    });
    expect(chat.texts(result('r1', { status: 201, body: { id: 42 } }))).to.deep.equal([
      'id 42',
      'ok',
    ]);

    const failing = talk(flow);
    failing.send(say('x'));
    expect(
      failing.texts({ type: 'effect_result', request_id: 'r1', ok: false, error: 'timeout' }),
    ).to.deep.equal(['id ', 'oops timeout']);
  });

  it('when an effect result is stale or input arrives while an effect is out, then nothing happens', () => {
    const flow = flowOf({
      s: {
        actions: [{ answer_from: { collection: 'faq', query: 'q' } }, text('A: {{answer}}')],
        end: true,
      },
    });
    const chat = talk(flow);
    chat.send(say('hi'));
    const before = chat.state();
    for (const event of [result('r0', 'old'), say('hello?')]) {
      const turn = chat.send(event);
      expect(turn).to.deep.equal({
        state: before,
        outputs: [],
        effects: [],
        errors: [],
        trace: [],
        rendered: 0,
      });
    }
    expect(chat.texts(result('r1', 'We open at 9.'))).to.deep.equal(['A: We open at 9.']);
  });

  it('when answer_from runs, then it asks the collection with the rendered query and stores into answer', () => {
    const flow = flowOf({
      q: { wait: { store: 'question' }, next: 'a' },
      a: {
        actions: [
          { answer_from: { collection: 'shop-faq', query: 'about {{question}}', k: 5 } },
          text('{{answer}}'),
        ],
        next: 'q',
      },
    });
    const chat = talk(flow);
    expect(chat.send(say('hours')).effects).to.deep.equal([
      { kind: 'retrieve', request_id: 'r1', collection: 'shop-faq', query: 'about hours', k: 5 },
    ]);
    expect(chat.texts(result('r1', '9 to 5'))).to.deep.equal(['9 to 5']);
    expect(chat.state().vars).to.deep.equal({
      question: 'hours',
      answer: '9 to 5',
      answer_found: true,
    });
  });

  it('when the knowledge answer says nothing relevant was found, then <store>_found is false', () => {
    const flow = flowOf({
      q: { wait: { store: 'question' }, next: 'a' },
      a: {
        actions: [{ answer_from: { collection: 'faq', query: '{{question}}', store: 'kb' } }],
        transitions: [{ when: { '!': { var: 'kb_found' } }, to: 'human' }, { to: 'q' }],
      },
      human: { actions: [text('A person will help.')], next: 'q' },
    });
    const chat = talk(flow);
    chat.send(say('zeppelin'));
    const texts = chat.texts({
      type: 'effect_result',
      request_id: 'r1',
      ok: true,
      value: 'I found nothing about that in faq.',
      found: false,
    });
    expect(texts).to.deep.equal(['A person will help.']);
    expect(chat.state().vars).to.include({
      kb: 'I found nothing about that in faq.',
      kb_found: false,
    });
  });

  it('when a reset keyword, /start or a reset event arrives, then variables are cleared and start runs', () => {
    const flow: Flow = {
      ...flowOf({
        ask: { actions: [text('Question?')], wait: { store: 'a' }, next: 'more' },
        more: { wait: { store: 'b' }, next: 'more' },
      }),
      reset_keywords: ['Reset'],
    };
    const chat = talk(flow, ['/start']);
    chat.send(say('hi'));
    for (const event of [
      say('  RESET '),
      say('/start@shop_bot promo'),
      { type: 'reset' } as const,
    ]) {
      chat.send(say('x')); // an answer, so there is something to clear
      expect(chat.state().vars).to.deep.equal({ a: 'x' });
      expect(chat.texts(event)).to.deep.equal(['Question?']);
      expect(chat.state()).to.deep.equal({
        state: 'ask',
        vars: {},
        awaiting: { kind: 'input', state: 'ask', retries: 0 },
      });
    }
  });

  it('when a conversation ends, then the next message starts over with cleared variables', () => {
    const chat = talk(question({}));
    chat.send(say('hi'));
    expect(chat.texts(say('yes'))).to.deep.equal(['got yes']);
    expect(chat.state()).to.deep.equal({ state: 'done', vars: { a: 'yes' }, ended: true });
    expect(chat.texts(say('again'))).to.deep.equal(['Question?']);
    expect(chat.state().vars).to.deep.equal({});
  });

  it('when states loop without waiting, then the loop guard sends one apology and ends the conversation', () => {
    const flow = flowOf({
      a: { actions: [text('a')], next: 'b' },
      b: { actions: [text('b')], next: 'a' },
    });
    const chat = talk(flow);
    const turn = chat.send(say('hi'));
    expect(turn.outputs).to.deep.equal([
      {
        message_type: 'text',
        text: 'Sorry, something went wrong. Send any message to start again.',
      },
    ]);
    expect(turn.errors.map((e) => e.code)).to.deep.equal(['BW_ERR_FLOW_LOOP']);
    expect(turn.state.ended).to.equal(true);
  });

  it('when a flow feeds a template its own output state after state, then the turn stops at the render budget with one apology, BW_ERR_FLOW_BUDGET and no variables kept', () => {
    // Each state doubles x: 30 states would build 8 × 2^30 characters in one turn.
    const states: Record<string, FlowState> = {};
    for (let i = 0; i < 30; i += 1) {
      const double = { set: { x: '{{x}}{{x}}' } };
      states[`s${i}`] = {
        actions: i === 0 ? [{ set: { x: 'abcdefgh' } }, double] : [double],
        next: i < 29 ? `s${i + 1}` : 'show',
      };
    }
    states.show = { actions: [{ send: { text: '{{x}}' } }], wait: { store: 'y' }, next: 'show' };
    const result = runTurn(
      { version: 1, start: 's0', states },
      { state: null, vars: {} },
      say('hi'),
      { newRequestId: () => 'r' },
    );
    expect(result.errors.map((e) => e.code)).to.deep.equal(['BW_ERR_FLOW_BUDGET']);
    expect(result.outputs).to.deep.equal([{ message_type: 'text', text: DEFAULT_ERROR_TEXT }]);
    expect(result.state).to.include({ ended: true });
    expect(result.state.vars).to.deep.equal({});
  });

  it('when an llm prompt repeats a large variable past the render budget, then the turn stops like any template: no effect, one apology, BW_ERR_FLOW_BUDGET', () => {
    const flow = flowOf({
      ask: { wait: { store: 'said' }, next: 'think' },
      think: {
        actions: [{ llm: { prompt: '{{big}} {{big}} {{big}} {{big}} {{big}}', store: 'r' } }],
        end: true,
      },
    });
    const big = 'x'.repeat(1024 * 1024);
    const result = runTurn(
      flow,
      { state: 'ask', vars: { big }, awaiting: { kind: 'input', state: 'ask', retries: 0 } },
      say('hi'),
      { newRequestId: () => 'r' },
    );
    expect(result.effects).to.deep.equal([]);
    expect(result.errors.map((e) => e.code)).to.deep.equal(['BW_ERR_FLOW_BUDGET']);
    expect(result.outputs).to.deep.equal([{ message_type: 'text', text: DEFAULT_ERROR_TEXT }]);
  });

  it('when a condition joins a variable into a string longer than its cap, then the condition is false', () => {
    const half = 'y'.repeat(MAX_CAT_CHARS / 2 + 1);
    const when = { '==': [{ cat: [{ var: 'x' }, { var: 'x' }] }, half + half] };
    expect(evaluateCondition(when, { x: half })).to.equal(false);
    const short = { '==': [{ cat: [{ var: 'x' }, '-', null, { var: 'x' }] }, 'ab-ab'] };
    expect(evaluateCondition(short, { x: 'ab' })).to.equal(true);
  });

  it('when a state without a wait has no transition that holds, then the flow reports itself stuck', () => {
    const flow = flowOf({ s: { actions: [text('hi')], transitions: [{ when: false, to: 's' }] } });
    const turn = talk(flow).send(say('x'));
    expect(turn.outputs.map((o) => ('text' in o ? o.text : ''))).to.have.length(2);
    expect(turn.errors.map((e) => e.code)).to.deep.equal(['BW_ERR_FLOW_STUCK']);
  });

  it('when the user picks a language, then it is stored, visible as {{language}}, and kept across a reset', () => {
    const options = ['en', 'de', 'fr', 'es'].map((code) => ({ code, title: code.toUpperCase() }));
    const flow = flowOf({
      lang: {
        actions: [
          { choose_language: { prompt: 'Language?', options: options.slice(0, 2) } },
          text('now {{language}}'),
        ],
        next: 'more',
      },
      more: {
        actions: [
          { choose_language: { prompt: 'More?', button: 'Pick', options } },
          text('then {{language}}'),
        ],
        end: true,
      },
    });
    const chat = talk(flow);
    expect(chat.send(say('hi')).outputs).to.deep.equal([
      {
        message_type: 'button',
        text: 'Language?',
        buttons: [
          { id: 'en', title: 'EN' },
          { id: 'de', title: 'DE' },
        ],
      },
    ]);
    expect(chat.texts(say('klingon'))).to.deep.equal(['Language?']);
    const picked = chat.send(press('de'));
    expect(picked.outputs[0]).to.deep.equal({ message_type: 'text', text: 'now de' });
    expect(picked.outputs[1]).to.deep.include({ message_type: 'option_list', text: 'More?' });
    chat.send(say('x'));
    chat.send(say('y'));
    expect(chat.texts(say('z'))).to.deep.equal(['then de']);
    expect(chat.send({ type: 'reset' }).state.language).to.equal('de');
  });

  it('when runTurn is called twice on the same state, then the state is untouched and the results equal', () => {
    const state: ConversationState = newConversation();
    const frozen = structuredClone(state);
    const once = runTurn(DEFAULT_FLOW, state, say('hi'), { newRequestId: () => 'x' });
    const twice = runTurn(DEFAULT_FLOW, state, say('hi'), { newRequestId: () => 'x' });
    expect(state).to.deep.equal(frozen);
    expect(once).to.deep.equal(twice);
  });

  it('when the documented bike shop flow is used, then booking, validation and a knowledge answer work', () => {
    const doc = readFileSync(new URL('../docs/flows.md', import.meta.url), 'utf8');
    const flow = JSON.parse(/```json\n([\s\S]*?)```/.exec(doc)?.[1] ?? '{}') as Flow;
    const chat = talk(flow);
    expect(chat.send(say('hello')).outputs.map((o) => o.message_type)).to.deep.equal([
      'text',
      'button',
    ]);
    expect(chat.send(press('ask')).outputs).to.deep.equal([
      { message_type: 'text', text: 'What would you like to know?' },
    ]);
    expect(chat.send(say('Do you fix e-bikes?')).effects[0]).to.include({
      kind: 'retrieve',
      collection: 'shop-faq',
      query: 'Do you fix e-bikes?',
    });
    expect(chat.texts(result('r1', 'Yes, all brands.'))).to.deep.equal([
      'Yes, all brands.',
      'How can I help?',
    ]);
    chat.send(press('book'));
    expect(chat.texts(say('9'))).to.deep.equal(['Please send a number from 1 to 5.']);
    expect(chat.texts(say('2'))).to.deep.equal(['Which email should get the confirmation?']);
    expect(chat.send(say('ada@example.com')).effects[0]).to.deep.include({
      kind: 'http',
      body: { bikes: 2, email: 'ada@example.com' },
    });
    expect(chat.texts(result('r2', { status: 201, body: { id: 'B-17' } }))).to.deep.equal([
      'Booked 2 bike(s), number B-17. See you soon!',
    ]);
    expect(chat.state().ended).to.equal(true);
  });
});

describe('flow engine: the turn trace', () => {
  it('when a turn waits, retries, branches, calls out and ends, then its trace lists each step in order with the transition that fired and its condition', () => {
    const flow = flowOf({
      ask: {
        actions: [text('How many?')],
        wait: { store: 'n', expect: 'number' },
        transitions: [{ when: { '>': [{ var: 'n' }, 5] }, to: 'many' }, { to: 'few' }],
      },
      many: {
        actions: [{ http: { method: 'GET', url: 'https://api.example/n', store: 'r' } }],
        next: 'done',
      },
      few: { next: 'done' },
      done: { actions: [text('ok')], end: true },
    });
    const chat = talk(flow);
    expect(chat.send(say('hi')).trace).to.deep.equal([
      { start: 'ask' },
      { enter: 'ask' },
      { wait: 'ask' },
    ]);
    expect(chat.send(say('lots')).trace).to.deep.equal([{ retry: 'ask' }]);
    expect(chat.send(say('7')).trace).to.deep.equal([
      { transition: { from: 'ask', to: 'many', index: 0, when: { '>': [{ var: 'n' }, 5] } } },
      { enter: 'many' },
      { effect: { state: 'many', kind: 'http' } },
    ]);
    expect(chat.send(result('r1', { status: 200, body: {} })).trace).to.deep.equal([
      { next: { from: 'many', to: 'done' } },
      { enter: 'done' },
      { end: 'done' },
    ]);
    const other = talk(flow);
    other.send(say('hi'));
    expect(other.send(say('2')).trace.slice(0, 3)).to.deep.equal([
      { transition: { from: 'ask', to: 'few', index: 1 } },
      { enter: 'few' },
      { next: { from: 'few', to: 'done' } },
    ]);
  });

  it('when the loop guard stops a turn, then its trace ends with the stop and not an end', () => {
    const flow = flowOf({ a: { next: 'b' }, b: { next: 'a' } });
    const trace = talk(flow).send(say('hi')).trace;
    expect(trace.at(-1)).to.deep.equal({ stopped: { state: 'a', code: 'BW_ERR_FLOW_LOOP' } });
    expect(trace.some((s) => 'end' in s)).to.equal(false);
  });
});

describe('flow engine: the answer to a message the bot wrote first (move)', () => {
  const flow = flowOf({
    menu: { actions: [text('Menu')], wait: { store: 'pick' }, next: 'menu' },
    confirm: {
      actions: [text('never said: the reminder asked')],
      wait: { store: 'answer' },
      next: 'done',
    },
    done: { actions: [text('{{answer}}, {{pick}}')], end: true },
  });
  const move = (state: string): FlowEvent => ({ type: 'move', state });

  it('when a conversation in the middle of the flow is moved, then it waits at the state without its actions and its answer goes on from there with the variables kept', () => {
    const chat = talk(flow);
    chat.texts(say('hi'));
    chat.texts(say('bikes'));
    const moved = chat.send(move('confirm'));
    expect(moved.outputs).to.deep.equal([]);
    // It leaves the menu forward: the analytics do not count the menu as given up.
    expect(moved.trace).to.deep.equal([
      { next: { from: 'menu', to: 'confirm' } },
      { enter: 'confirm' },
      { wait: 'confirm' },
    ]);
    expect(chat.state()).to.deep.include({
      state: 'confirm',
      awaiting: { kind: 'input', state: 'confirm', retries: 0 },
    });
    expect(chat.texts(say('yes'))).to.deep.equal(['yes, bikes']);
  });

  it('when a conversation that never started or ended is moved, then it starts anew at the state (counted as a start) and the first message is its answer', () => {
    const fresh = talk(flow);
    expect(fresh.send(move('confirm')).trace[0]).to.deep.equal({ start: 'menu' });
    expect(fresh.texts(say('yes'))).to.deep.equal(['yes, ']);
    expect(fresh.state().ended).to.equal(true);
    fresh.send(move('confirm'));
    expect(fresh.state()).to.deep.equal({
      state: 'confirm',
      vars: {},
      awaiting: { kind: 'input', state: 'confirm', retries: 0 },
    });
  });

  it('when the state is gone or waits for nothing, a person has the conversation, or a step’s answer is awaited, then nothing changes', () => {
    const chat = talk(flow);
    chat.texts(say('hi'));
    const before = chat.state();
    for (const state of ['gone', 'done']) {
      const result = chat.send(move(state));
      expect(result.errors.map((e) => e.code)).to.deep.equal(['BW_ERR_UNKNOWN_STATE']);
      expect(chat.state()).to.deep.equal(before);
    }
    const held: ConversationState = { ...before, handoff: { id: 'h1', since: 'now' } };
    const result = runTurn(flow, held, move('confirm'), { newRequestId: () => 'r' });
    expect(result.state).to.deep.equal(held);
    const waiting: ConversationState = {
      ...before,
      awaiting: { kind: 'effect', request_id: 'r1', state: 'menu', action_index: 0 },
    };
    expect(
      runTurn(flow, waiting, move('confirm'), { newRequestId: () => 'r' }).state,
    ).to.deep.equal(waiting);
  });
});
