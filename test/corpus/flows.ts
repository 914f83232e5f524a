/** Hostile and malformed flow definitions, through POST /v2/bots and PATCH /v2/bots/<app_id>. */
import type { CorpusContext, CorpusRequest, HttpCase } from './types.ts';
import { nested } from './types.ts';

const S = 'flow';
const TOKEN = '123456789:AAExampleTokenForTests_abcdefghijk';

/** A valid flow; each case spoils a copy of it. */
function baseFlow(): Record<string, any> {
  return {
    version: 1,
    start: 'hello',
    states: {
      hello: {
        actions: [{ send: { text: 'Hi {{name}}' } }],
        wait: { store: 'name', expect: 'text' },
        transitions: [{ when: { '==': [{ var: 'name' }, 'bye'] }, to: 'bye' }, { to: 'hello' }],
      },
      bye: { actions: [{ send: { text: 'Bye' } }], end: true },
    },
  };
}

const invalid = { status: 400, code: 'BW_ERR_FLOW_INVALID' } as const;
const prototypeKey = { status: 400, code: 'BW_ERR_SCHEMA' } as const;

/** Each flow is tried both ways: creating a bot with it, and patching an existing bot with it. */
function both(
  name: string,
  kind: string,
  flow: (f: Record<string, any>) => unknown,
  expect: { status: number; code: string } = invalid,
): HttpCase[] {
  const raw = (value: unknown): string | undefined =>
    typeof value === 'string' && value.startsWith('RAW:') ? value.slice(4) : undefined;
  const post = (): CorpusRequest => {
    const value = flow(baseFlow());
    const text = raw(value);
    const channel = JSON.stringify({ type: 'telegram', details: { bot_token: TOKEN } });
    return {
      method: 'POST',
      path: '/v2/bots',
      headers: { 'content-type': 'application/json' },
      raw: `{"name":"flow corpus","channel":${channel},"flow":${text ?? JSON.stringify(value)}}`,
    };
  };
  const patch = (c: CorpusContext): CorpusRequest => {
    const value = flow(baseFlow());
    const text = raw(value);
    return {
      method: 'PATCH',
      path: `/v2/bots/${c.telegram.appId}`,
      headers: { 'content-type': 'application/json' },
      raw: `{"flow":${text ?? JSON.stringify(value)}}`,
    };
  };
  return [
    { name: `create with ${name}`, kind, surface: S, request: post, expect },
    { name: `patch with ${name}`, kind, surface: S, request: patch, expect },
  ];
}

const hello = (f: Record<string, any>) => f.states.hello as Record<string, any>;

export const FLOW_CASES: HttpCase[] = [
  ...both('a flow that is an array', 'wrong-type', () => [], {
    status: 400,
    code: 'BW_ERR_SCHEMA',
  }),
  ...both('a flow that is null', 'wrong-type', () => null, { status: 400, code: 'BW_ERR_SCHEMA' }),
  ...both('version 2', 'wrong-type', (f) => ({ ...f, version: 2 })),
  ...both('no states', 'missing-field', ({ states: _, ...f }) => f),
  ...both('no start', 'missing-field', ({ start: _, ...f }) => f),
  ...both('start naming no state', 'missing-field', (f) => ({ ...f, start: 'nowhere' })),
  ...both(
    'a transition to no state',
    'missing-field',
    (f) => ((hello(f).transitions[1].to = 'nowhere'), f),
  ),
  ...both('states as an array', 'wrong-type', (f) => ({ ...f, states: [f.states.hello] })),
  // Prototype keys are refused while the body is parsed (docs/edge.md), before flow validation.
  ...both(
    'a state named __proto__',
    'prototype-pollution',
    () =>
      'RAW:{"version":1,"start":"hello","states":{"hello":{"end":true},"__proto__":{"end":true}}}',
    prototypeKey,
  ),
  ...both(
    'a state named constructor',
    'prototype-pollution',
    (f) => ((f.states.constructor = { end: true }), f),
    prototypeKey,
  ),
  ...both(
    'a set of prototype',
    'prototype-pollution',
    (f) => (hello(f).actions.push({ set: { prototype: 1 } }), f),
    prototypeKey,
  ),
  ...both(
    'a condition reading constructor.prototype',
    'prototype-pollution',
    (f) => (
      (hello(f).transitions[0].when = { '==': [{ var: 'name.constructor.prototype' }, 1] }),
      f
    ),
  ),
  ...both(
    'a condition with a computed var path',
    'template-injection',
    (f) => ((hello(f).transitions[0].when = { var: { cat: ['constructor', '.constructor'] } }), f),
  ),
  ...both(
    'a JSON Logic operator outside the whitelist (method)',
    'template-injection',
    (f) => ((hello(f).transitions[0].when = { method: ['abc', 'toUpperCase'] }), f),
  ),
  ...both(
    'a template placeholder used as a state name',
    'template-injection',
    (f) => ((hello(f).transitions[1].to = "{{constructor.constructor('x')()}}"), f),
  ),
  ...both(
    'a template placeholder used as a variable name',
    'template-injection',
    (f) => ((hello(f).wait.store = '{{process.env}}'), f),
  ),
  ...both(
    'an http url that is javascript:',
    'template-injection',
    (f) => (
      hello(f).actions.push({ http: { method: 'GET', url: 'javascript:alert(1)', store: 'r' } }),
      f
    ),
  ),
  ...both(
    'an http url that is file://',
    'template-injection',
    (f) => (
      hello(f).actions.push({ http: { method: 'GET', url: 'file:///etc/passwd', store: 'r' } }),
      f
    ),
  ),
  ...both(
    'an http header name with a line break',
    'template-injection',
    (f) => (
      hello(f).actions.push({
        http: {
          method: 'GET',
          url: 'https://x.test/',
          headers: { 'X-A\r\nHost': 'evil' },
          store: 'r',
        },
      }),
      f
    ),
  ),
  ...both(
    'an http method TRACE',
    'wrong-type',
    (f) => (
      hello(f).actions.push({ http: { method: 'TRACE', url: 'https://x.test/', store: 'r' } }),
      f
    ),
  ),
  ...both(
    'a wait pattern that does not compile',
    'wrong-type',
    (f) => ((hello(f).wait.pattern = '(unclosed'), f),
  ),
  // Patterns RE2 cannot match in linear time: refused at validation, never run.
  ...[
    ['a backreference', '^(a+)\\1$'],
    ['a lookahead', '^(?=(a+)+$)a'],
    ['a negative lookbehind', '(?<!x)(a+)+$'],
    ['a repetition over 1000', '^(a{1,1001})$'],
    ['nested repetitions too large to compile', '((a{1,1000}){1,1000}){1,1000}'],
  ].flatMap(([what, pattern]) =>
    both(`a wait pattern with ${what}`, 'catastrophic-pattern', (f) => {
      hello(f).wait.pattern = pattern;
      return f;
    }),
  ),
  ...both(
    'a wait pattern of 201 characters',
    'huge',
    (f) => ((hello(f).wait.pattern = 'a'.repeat(201)), f),
  ),
  ...both(
    'a text of 4,097 characters',
    'huge',
    (f) => ((hello(f).actions[0].send.text = 'x'.repeat(4097)), f),
  ),
  ...both('501 states', 'huge', (f) => {
    for (let i = 0; i < 501; i += 1) f.states[`s${i}`] = { end: true };
    return f;
  }),
  ...both(
    'an action with two kinds',
    'wrong-type',
    (f) => ((hello(f).actions[0] = { send: { text: 'a' }, set: { x: 1 } }), f),
  ),
  ...both(
    'four buttons',
    'huge',
    (f) => (
      (hello(f).actions[0].send.buttons = [1, 2, 3, 4].map((i) => ({
        id: `b${i}`,
        title: `B${i}`,
      }))),
      f
    ),
  ),
  ...both(
    'writing the reserved variable input',
    'wrong-type',
    (f) => (hello(f).actions.push({ set: { input: 'x' } }), f),
  ),
  ...both(
    'a condition nested 20,000 levels deep',
    'nesting',
    (f) => {
      const when = nested(20_000, '{"!":', '}', '{"var":"name"}');
      return `RAW:${JSON.stringify(f).replace('{"==":[{"var":"name"},"bye"]}', when)}`;
    },
    { status: 400, code: 'BW_ERR_MALFORMED_JSON' },
  ),
  ...both(
    'a condition nested 101 levels deep (over MAX_JSON_DEPTH with the flow around it)',
    'nesting',
    (f) => {
      let when: unknown = { var: 'name' };
      for (let i = 0; i < 101; i += 1) when = { '!': when };
      hello(f).transitions[0].when = when;
      return f;
    },
    { status: 400, code: 'BW_ERR_MALFORMED_JSON' },
  ),
  // Understanding free text and the llm step (docs/flows.md).
  ...both('intents as an object', 'wrong-type', (f) => ({ ...f, intents: { human: ['hi'] } })),
  ...both('an intent named __proto__', 'prototype-pollution', (f) => ({
    ...f,
    intents: [{ name: '__proto__', examples: ['talk to a person'] }],
  })),
  ...both('51 intents', 'huge', (f) => ({
    ...f,
    intents: Array.from({ length: 51 }, (_, i) => ({ name: `i${i}`, examples: [`phrase ${i}`] })),
  })),
  ...both('an example phrase of 201 characters', 'huge', (f) => ({
    ...f,
    intents: [{ name: 'human', examples: ['x'.repeat(201)] }],
  })),
  ...both(
    'a button with 51 example phrases',
    'huge',
    (f) => (
      (hello(f).actions[0].send.buttons = [
        { id: 'a', title: 'A', examples: Array.from({ length: 51 }, (_, i) => `way ${i}`) },
      ]),
      f
    ),
  ),
  ...both('two intents of one name', 'duplicate', (f) => ({
    ...f,
    intents: [
      { name: 'human', examples: ['talk to a person'] },
      { name: 'human', examples: ['an agent please'] },
    ],
  })),
  ...both('a global intent naming no state', 'missing-field', (f) => ({
    ...f,
    intents: [{ name: 'human', examples: ['talk to a person'], global: { to: 'nowhere' } }],
  })),
  ...both(
    'a condition testing an intent the flow does not declare',
    'missing-field',
    (f) => ((hello(f).transitions[0].when = { intent: 'refund' }), f),
  ),
  ...both('matching.min_score of 2', 'out-of-range', (f) => ({
    ...f,
    matching: { min_score: 2 },
  })),
  ...both(
    "an llm step's system with a placeholder",
    'template-injection',
    (f) => (
      hello(f).actions.push({ llm: { system: 'Obey {{name}}', prompt: 'Hi', store: 'reply' } }),
      f
    ),
  ),
  ...both(
    'an llm output schema with a backreference',
    'catastrophic-pattern',
    (f) => (
      hello(f).actions.push({
        llm: { prompt: 'Hi', output: { type: 'string', pattern: '^(a+)\\1$' }, store: 'reply' },
      }),
      f
    ),
  ),
  ...both(
    'an llm step storing into the reserved variable input',
    'wrong-type',
    (f) => (hello(f).actions.push({ llm: { prompt: 'Hi', store: 'input' } }), f),
  ),
  ...both("llm.turn_tokens below an llm step's max_tokens", 'out-of-range', (f) => {
    hello(f).actions.push({ llm: { prompt: 'Hi', store: 'reply', max_tokens: 500 } });
    return { ...f, llm: { turn_tokens: 100 } };
  }),
  ...both(
    'a string with a NUL character',
    'invalid-utf8',
    (f) => ((hello(f).actions[0].send.text = 'a\u0000b'), f),
    { status: 400, code: 'BW_ERR_SCHEMA' },
  ),
  ...both(
    'a string with a lone surrogate',
    'invalid-utf8',
    (f) => `RAW:${JSON.stringify(f).replace('Hi {{name}}', 'Hi \\udc00')}`,
    { status: 400, code: 'BW_ERR_SCHEMA' },
  ),
];
