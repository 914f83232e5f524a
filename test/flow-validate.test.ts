/**
 * Flow validation: the schema and the semantic checks, each refusal pointing at the bad field.
 */
import { expect } from 'chai';
import { outputSchema } from '../src/shared/flows/llm-output.ts';
import { readFileSync } from 'node:fs';
import { BotwireError } from '../src/shared/errors.ts';
import { DEFAULT_FLOW } from '../src/shared/flows/default-flow.ts';
import type { Flow, FlowState } from '../src/shared/flows/types.ts';
import {
  assertValidFlow,
  validateFlow,
  type FlowProblem,
} from '../src/shared/flows/validate-flow.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';

const schemas = new SchemaRegistry();

/** A minimal valid flow with extra states merged in. */
function flowWith(states: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown {
  return {
    version: 1,
    start: 'hello',
    states: { hello: { actions: [{ send: { text: 'hi' } }], end: true }, ...states },
    ...extra,
  };
}

function problemsOf(flow: unknown): FlowProblem[] {
  const result = validateFlow(schemas, flow);
  expect(result.ok, 'the flow should be refused').to.equal(false);
  return result.ok ? [] : result.problems;
}

function pathsOf(flow: unknown): string[] {
  return problemsOf(flow).map((p) => p.path);
}

/** The flows of docs/flows.md, so the documented examples stay valid. */
function documentedFlows(): unknown[] {
  const doc = readFileSync(new URL('../docs/flows.md', import.meta.url), 'utf8');
  return [...doc.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => JSON.parse(m[1] ?? 'null') as unknown)
    .filter((value) => (value as { version?: unknown } | null)?.version === 1);
}

describe('flow validation', () => {
  it('when the default flow is checked, then it passes without warnings', () => {
    const result = validateFlow(schemas, DEFAULT_FLOW);
    expect(result).to.deep.equal({ ok: true, flow: DEFAULT_FLOW, warnings: [] });
  });

  it('when the flows of docs/flows.md are checked, then each passes', () => {
    const flows = documentedFlows();
    expect(flows).to.have.length.greaterThan(0);
    for (const flow of flows) {
      const result = validateFlow(schemas, flow);
      expect(result.ok ? [] : result.problems).to.deep.equal([]);
    }
  });

  it('when a flow is not an object, then it is refused at the root', () => {
    expect(pathsOf('hello')).to.deep.equal(['/']);
  });

  it('when start names no state, then /start is reported', () => {
    expect(problemsOf(flowWith({}, { start: 'nowhere' }))).to.deep.equal([
      { path: '/start', message: 'names no state ("nowhere")' },
    ]);
  });

  it('when start is missing, then /start is required', () => {
    const flow = flowWith({}) as Record<string, unknown>;
    delete flow.start;
    expect(problemsOf(flow)).to.deep.include({ path: '/start', message: 'is required' });
  });

  it('when a transition goes to an unknown state, then its `to` is reported', () => {
    const menu: FlowState = {
      actions: [{ send: { text: 'pick', buttons: [{ id: 'a', title: 'A' }] } }],
      wait: { store: 'pick', expect: 'choice' },
      transitions: [{ when: { '==': [{ var: 'pick' }, 'a'] }, to: 'hello' }, { to: 'missing' }],
    };
    expect(problemsOf(flowWith({ menu }))).to.deep.equal([
      { path: '/states/menu/transitions/1/to', message: 'names no state ("missing")' },
    ]);
  });

  it('when next or on_fail name unknown states, then each is reported', () => {
    const ask: FlowState = { wait: { store: 'x', on_fail: 'ghost' }, next: 'void' };
    expect(pathsOf(flowWith({ ask }))).to.deep.equal([
      '/states/ask/next',
      '/states/ask/wait/on_fail',
    ]);
  });

  it('when a pattern does not compile or cannot be matched in linear time, then each is reported at its wait', () => {
    // A backreference, lookahead and lookbehind need backtracking; {1001} passes RE2's cap.
    const patterns = ['([a-z', '(a)\\1', '^(?=a)a$', '(?<!x)y', 'a{1001}', '(?:a{1,1000}){1,1000}'];
    const states = Object.fromEntries(
      patterns.map((pattern, i) => [`s${i}`, { wait: { store: 'code', pattern }, next: 'hello' }]),
    );
    const problems = problemsOf(flowWith(states));
    expect(problems.map((p) => p.path)).to.deep.equal(
      patterns.map((_, i) => `/states/s${i}/wait/pattern`),
    );
    for (const problem of problems)
      expect(problem.message).to.match(/^is not a pattern RE2 matches/);
    // What RE2 takes, including what a backtracking engine chokes on, passes.
    const fine = { wait: { store: 'code', pattern: '^(a+)+$' }, next: 'hello' };
    expect(validateFlow(schemas, flowWith({ fine })).ok).to.equal(true);
  });

  it('when a condition uses the method operator, then the operator is refused', () => {
    const branch = {
      transitions: [{ when: { method: [{ var: 'name' }, 'toUpperCase'] }, to: 'hello' }],
    };
    expect(problemsOf(flowWith({ branch }))).to.deep.equal([
      { path: '/states/branch/transitions/0/when/method', message: 'is not allowed' },
    ]);
  });

  it('when a nested condition uses an operator off the whitelist, then its path is reported', () => {
    const when = { and: [{ '==': [{ var: 'a' }, 1] }, { '+': [1, 2] }] };
    expect(pathsOf(flowWith({ branch: { transitions: [{ when, to: 'hello' }] } }))).to.deep.equal([
      '/states/branch/transitions/0/when/and/1/+',
    ]);
  });

  it('when a condition computes a variable name or reaches a prototype, then it is refused', () => {
    const computed = { var: { cat: ['__pro', 'to__'] } };
    const proto = { '==': [{ var: 'user.constructor' }, 1] };
    expect(
      pathsOf(flowWith({ a: { transitions: [{ when: computed, to: 'hello' }] } })),
    ).to.deep.equal(['/states/a/transitions/0/when/var']);
    expect(pathsOf(flowWith({ a: { transitions: [{ when: proto, to: 'hello' }] } }))).to.deep.equal(
      ['/states/a/transitions/0/when/==/0/var'],
    );
  });

  it('when a state has both next and transitions, then next is reported', () => {
    const both: FlowState = { next: 'hello', transitions: [{ to: 'hello' }] };
    expect(problemsOf(flowWith({ both }))).to.deep.equal([
      { path: '/states/both/next', message: 'must not be used together with transitions' },
    ]);
  });

  it('when a state has end together with next, then end is reported', () => {
    expect(pathsOf(flowWith({ odd: { next: 'hello', end: true } }))).to.deep.equal([
      '/states/odd/end',
    ]);
  });

  it('when a state has no wait, next, transitions or end, then it is reported as a dead end', () => {
    expect(problemsOf(flowWith({ stuck: { actions: [{ send: { text: 'bye' } }] } }))).to.deep.equal(
      [
        {
          path: '/states/stuck',
          message: 'is a dead end: give it a wait, next, transitions or end',
        },
      ],
    );
  });

  it('when a choice wait has no send with options before it, then expect is reported', () => {
    const ask: FlowState = {
      actions: [{ send: { text: 'pick one' } }],
      wait: { store: 'x', expect: 'choice' },
      next: 'hello',
    };
    expect(pathsOf(flowWith({ ask }))).to.deep.equal(['/states/ask/wait/expect']);
  });

  it('when a choice wait has a pattern, then the pattern is reported', () => {
    const ask: FlowState = {
      actions: [{ send: { text: 'pick', buttons: [{ id: 'a', title: 'A' }] } }],
      wait: { store: 'x', expect: 'choice', pattern: 'a' },
      next: 'hello',
    };
    expect(pathsOf(flowWith({ ask }))).to.deep.equal(['/states/ask/wait/pattern']);
  });

  it('when a send has buttons and a list, repeated ids, or more than 10 rows, then each is reported', () => {
    const rows = Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }));
    const send = {
      text: 'pick',
      buttons: [
        { id: 'a', title: 'A' },
        { id: 'a', title: 'Again' },
      ],
      list: { button: 'Open', sections: [{ rows }, { rows }] },
    };
    const paths = pathsOf(flowWith({ menu: { actions: [{ send }], end: true } }));
    expect(paths).to.include.members([
      '/states/menu/actions/0/send/list',
      '/states/menu/actions/0/send/buttons/1/id',
      '/states/menu/actions/0/send/list/sections',
      '/states/menu/actions/0/send/list/sections/1/rows/0/id',
    ]);
  });

  it('when a send has four buttons or buttons without text, then the schema refuses it', () => {
    const four = Array.from({ length: 4 }, (_, i) => ({ id: `b${i}`, title: `B${i}` }));
    expect(
      pathsOf(flowWith({ m: { actions: [{ send: { text: 't', buttons: four } }], end: true } })),
    ).to.deep.equal(['/states/m/actions/0/send/buttons']);
    const bare = { buttons: [{ id: 'a', title: 'A' }] };
    expect(pathsOf(flowWith({ m: { actions: [{ send: bare }], end: true } }))).to.deep.equal([
      '/states/m/actions/0/send/text',
    ]);
  });

  it('when an action holds two kinds or none, then the action is reported', () => {
    const two = { send: { text: 'x' }, set: { a: 1 } };
    expect(problemsOf(flowWith({ m: { actions: [two, {}], end: true } }))).to.deep.equal([
      {
        path: '/states/m/actions/0',
        message:
          'must hold exactly one of send, set, http, answer_from, choose_language, handoff, llm',
      },
      {
        path: '/states/m/actions/1',
        message:
          'must hold exactly one of send, set, http, answer_from, choose_language, handoff, llm',
      },
    ]);
  });

  it('when names reach into prototypes or are malformed, then the key itself is reported', () => {
    const flow = JSON.parse(
      '{"version":1,"start":"a","states":{"a":{"actions":[{"set":{"constructor":1,"ok":2}}],"end":true},"__proto__":{"end":true}}}',
    ) as unknown;
    expect(pathsOf(flow)).to.deep.equal([
      '/states/__proto__',
      '/states/a/actions/0/set/constructor',
    ]);
  });

  it('when a flow stores into a reserved variable, then the store is reported', () => {
    const ask: FlowState = {
      actions: [
        { set: { language: 'en' } },
        { answer_from: { collection: 'faq', query: 'q', store: 'input' } },
      ],
      wait: { store: 'input' },
      next: 'hello',
    };
    expect(pathsOf(flowWith({ ask }))).to.deep.equal([
      '/states/ask/actions/0/set/language',
      '/states/ask/actions/1/answer_from/store',
      '/states/ask/wait/store',
    ]);
  });

  it('when an HTTP action has a body with GET or a non-http URL, then each is reported', () => {
    const get = { method: 'GET', url: 'https://api.example.com/x', body: { a: 1 }, store: 'r' };
    expect(pathsOf(flowWith({ call: { actions: [{ http: get }], end: true } }))).to.deep.equal([
      '/states/call/actions/0/http/body',
    ]);
    const file = { method: 'POST', url: 'file:///etc/passwd', store: 'r' };
    expect(problemsOf(flowWith({ call: { actions: [{ http: file }], end: true } }))).to.deep.equal([
      { path: '/states/call/actions/0/http/url', message: 'must start with http:// or https://' },
    ]);
  });

  it('when a state is never reached from start, then the flow passes with a warning', () => {
    const result = validateFlow(schemas, flowWith({ orphan: { end: true } }));
    expect(result.ok && result.warnings).to.deep.equal([
      { path: '/states/orphan', message: 'is never reached from start' },
    ]);
  });

  const call = (url: string, store: string, timeout_ms?: number) => ({
    http: { method: 'GET', url, store, ...(timeout_ms === undefined ? {} : { timeout_ms }) },
  });

  it('when one turn can make more HTTP steps than the budget, then the flow passes with a warning at where the turn begins', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => call(`https://a.test/${i}`, `r${i}`));
    const result = validateFlow(
      schemas,
      flowWith(
        {},
        {
          start: 'ask',
          states: {
            ask: { wait: { store: 'q' }, next: 'first' },
            first: { actions: eleven.slice(0, 6), next: 'second' },
            second: { actions: eleven.slice(6), next: 'ask' },
          },
        },
      ),
    );
    expect(result.ok).to.equal(true);
    expect(result.warnings.map((w) => w.path)).to.deep.equal(['/states/first', '/states/first']);
    expect(result.warnings[0]!.message).to.match(
      /11 HTTP steps, more than 10 \(FLOW_HTTP_MAX_STEPS\)/,
    );
    expect(result.warnings[1]!.message).to.match(
      /55000 ms .* more than 30000 \(FLOW_HTTP_TURN_BUDGET_MS\)/,
    );
  });

  it('when HTTP steps can repeat without a wait, then the flow passes with a loop warning; with a wait between, none', () => {
    const looping = validateFlow(
      schemas,
      flowWith(
        {},
        {
          start: 'call',
          states: {
            call: { actions: [call('https://a.test/', 'r')], next: 'check' },
            check: {
              transitions: [{ when: { '!!': [{ var: 'r.code' }] }, to: 'done' }, { to: 'call' }],
            },
            done: { end: true },
          },
        },
      ),
    );
    expect(looping.warnings.map((w) => w.path)).to.deep.equal(['/states/call']);
    expect(looping.warnings[0]!.message).to.match(/repeat HTTP steps without waiting/);
    const waiting = validateFlow(
      schemas,
      flowWith(
        {},
        {
          start: 'call',
          states: {
            call: {
              actions: [call('https://a.test/', 'r')],
              wait: { store: 'again' },
              next: 'call',
            },
          },
        },
      ),
    );
    expect(waiting).to.deep.include({ ok: true, warnings: [] });
  });

  it('when the timeouts of one turn sum over the budget, then a warning; an answer_from between steps splits the turn', () => {
    const slow = validateFlow(
      schemas,
      flowWith(
        {},
        {
          start: 'a',
          states: {
            a: {
              actions: [call('https://a.test/1', 'x', 20000), call('https://a.test/2', 'y', 20000)],
              end: true,
            },
          },
        },
      ),
    );
    expect(slow.warnings.map((w) => w.message)).to.have.length(1);
    expect(slow.warnings[0]!.message).to.match(/40000 ms/);
    const split = validateFlow(
      schemas,
      flowWith(
        {},
        {
          start: 'a',
          states: {
            a: {
              actions: [
                call('https://a.test/1', 'x', 20000),
                { answer_from: { collection: 'faq', query: 'q' } },
                call('https://a.test/2', 'y', 20000),
              ],
              end: true,
            },
          },
        },
      ),
    );
    expect(split).to.deep.include({ ok: true, warnings: [] });
  });

  it('when a flow has problems, then its warnings come beside them', () => {
    const result = validateFlow(schemas, flowWith({ orphan: { end: true } }, { start: 'nowhere' }));
    expect(result.ok).to.equal(false);
    expect(result.warnings.map((w) => w.path)).to.include('/states/orphan');
  });

  it('when assertValidFlow meets an invalid flow, then it throws BW_ERR_FLOW_INVALID with the problems', () => {
    let caught: unknown;
    try {
      assertValidFlow(schemas, flowWith({}, { start: 'nowhere' }));
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(BotwireError);
    expect((caught as BotwireError).code).to.equal('BW_ERR_FLOW_INVALID');
    expect((caught as BotwireError).details).to.deep.equal({
      problems: [{ path: '/start', message: 'names no state ("nowhere")' }],
      warnings: [{ path: '/states/hello', message: 'is never reached from start' }],
    });
    const ok: Flow = assertValidFlow(schemas, DEFAULT_FLOW);
    expect(ok).to.equal(DEFAULT_FLOW);
  });

  describe('understanding free text', () => {
    const menu = (buttons: unknown[], extra: Record<string, unknown> = {}) => ({
      version: 1,
      start: 'menu',
      states: {
        menu: {
          actions: [{ send: { text: 'Pick', buttons } }],
          wait: { store: 'topic', expect: 'choice' },
          transitions: [{ when: { intent: 'human' }, to: 'menu' }, { to: 'menu' }],
        },
        agent: { actions: [{ send: { text: 'Calling someone.' } }], next: 'menu' },
      },
      intents: [{ name: 'human', examples: ['talk to a person'], global: { to: 'agent' } }],
      ...extra,
    });
    const book = { id: 'book', title: 'Book a repair', examples: ['fix my bike'] };

    it("when options have examples and the flow declares intents, matching and an llm step, then it passes; a global intent's state counts as reached", () => {
      const flow = menu([book, { id: 'ask', title: 'Ask' }], {
        matching: { min_score: 0.4, margin: 0.1 },
        llm: { daily_tokens: 1000, mask_pii: true, topic: 'bikes', max_answer_chars: 300 },
      });
      (flow.states.menu as { actions: unknown[] }).actions.unshift({
        llm: { system: 'Be brief.', prompt: 'Say hi to {{name}}', store: 'greeting' },
      });
      expect(validateFlow(schemas, flow)).to.deep.include({ ok: true, warnings: [] });
    });

    it('when intents repeat a name, share a phrase, or name a global state that does not exist, then each is refused at its field', () => {
      const problems = problemsOf(
        menu([book], {
          intents: [
            { name: 'human', examples: ['talk to a person'], global: { to: 'nowhere' } },
            { name: 'human', examples: ['a person please'] },
            { name: 'agent', examples: ['Talk to a  person '] },
          ],
        }),
      );
      expect(problems).to.deep.include.members([
        { path: '/intents/0/global/to', message: 'names no state ("nowhere")' },
        { path: '/intents/1/name', message: 'repeats an earlier intent name' },
      ]);
      expect(problems.map((p) => p.path)).to.include('/intents/2/examples/0');
    });

    it('when an intent has no examples or a blank one, then the schema refuses it at the field', () => {
      expect(pathsOf(menu([book], { intents: [{ name: 'human', examples: [] }] }))).to.include(
        '/intents/0/examples',
      );
      const blank = problemsOf(menu([book], { intents: [{ name: 'human', examples: ['  '] }] }));
      expect(blank).to.deep.include({
        path: '/intents/0/examples/0',
        message: 'must not be blank',
      });
    });

    it('when a condition tests an intent the flow does not declare, then it is refused at the condition', () => {
      const flow = menu([book], { intents: [] });
      expect(problemsOf(flow)).to.deep.include({
        path: '/states/menu/transitions/0/when/intent',
        message: 'names no intent ("human")',
      });
    });

    it('when two options of one send share a phrase, then the second is refused', () => {
      const problems = problemsOf(
        menu([book, { id: 'fix', title: 'Fixes', examples: ['Fix my bike'] }]),
      );
      expect(problems.map((p) => p.path)).to.deep.equal([
        '/states/menu/actions/0/send/buttons/1/examples/0',
      ]);
    });

    it('when an llm step puts placeholders in system, names a bad output schema or a reserved store, then each is refused', () => {
      const flow = flowWith({
        ask: {
          actions: [
            {
              llm: {
                system: 'Answer {{name}}',
                prompt: 'Hi',
                output: { type: 'object', properties: { n: { type: 'nonsense' } } },
                store: 'input',
              },
            },
          ],
          end: true,
        },
      });
      expect(pathsOf(flow)).to.include.members([
        '/states/ask/actions/0/llm/system',
        '/states/ask/actions/0/llm/output',
        '/states/ask/actions/0/llm/store',
      ]);
    });

    it("when the flow's llm.turn_tokens is not above an llm step's max_tokens (256 unless set), then it is refused: no call of that step could ever be made", () => {
      const flow = (turnTokens: number, maxTokens?: number) =>
        flowWith(
          {
            ask: {
              actions: [
                {
                  llm: {
                    prompt: 'Hi',
                    store: 'reply',
                    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
                  },
                },
              ],
              end: true,
            },
          },
          { llm: { turn_tokens: turnTokens } },
        );
      expect(pathsOf(flow(100))).to.deep.equal(['/llm/turn_tokens']);
      expect(pathsOf(flow(500, 500))).to.deep.equal(['/llm/turn_tokens']);
      expect(validateFlow(schemas, flow(1000)).ok).to.equal(true);
      expect(validateFlow(schemas, flow(100, 50)).ok).to.equal(true);
    });

    it('when an llm output schema holds a pattern RE2 cannot run, then it is refused; a catastrophic one is checked in linear time', () => {
      const flow = (pattern: string) =>
        flowWith({
          ask: {
            actions: [
              { llm: { prompt: 'Hi', output: { type: 'string', pattern }, store: 'reply' } },
            ],
            end: true,
          },
        });
      expect(pathsOf(flow('(a)\\1'))).to.include('/states/ask/actions/0/llm/output');
      expect(validateFlow(schemas, flow('^(a+)+$')).ok).to.equal(true);
      const schema = outputSchema({ type: 'string', pattern: '^(a+)+$' });
      if (!schema.ok) throw new Error(schema.message);
      // Backtracking takes seconds on this answer; RE2 answers at once (no timing asserted).
      expect(schema.validate(`${'a'.repeat(40)}!`)).to.have.length(1);
      expect(schema.validate('aaaa')).to.deep.equal([]);
    });
  });
});
