/**
 * The conversation-test runner's parts on their own (no Redis, no Postgres): stand-in URLs matched
 * in linear time, expectations of every kind against the engine, knowledge and LLM stand-ins
 * through the same guardrails as live steps, the live turn's budgets, and a test chat's transcript
 * made into steps up to a handoff.
 */
import { expect } from 'chai';
import { createLogger } from '../src/shared/logger.ts';
import { runTests, type TestDeps } from '../src/flow/conversation-tests/run-test.ts';
import { urlFits } from '../src/flow/conversation-tests/stand-ins.ts';
import { stepsOfTranscript } from '../src/api/conversation-tests/from-chat.ts';
import type { ConversationTest } from '../src/shared/flows/conversation-test-types.ts';
import { faqFlow, helpFlow } from './support/flows.ts';

const deps: TestDeps = {
  turn: { budget: { httpSteps: 10, httpMs: 30_000 }, llm: { turnTokens: 4000, model: 'm' } },
  log: createLogger({ component: 'test', level: 'silent' }),
};
const run = (flow: Record<string, unknown>, test: Omit<ConversationTest, 'name'>) =>
  runTests(deps, {
    app_id: 'a',
    flow,
    handoff_keywords: ['agent'],
    tests: [{ name: 't', ...test }],
  });

describe('conversation tests: the runner', () => {
  it('when a stand-in URL has many stars and the URL almost fits, then it is refused at once (no backtracking)', () => {
    const started = performance.now();
    expect(urlFits(`https://x/${'*a'.repeat(10)}*b`, `https://x/${'a'.repeat(40)}`)).to.equal(
      false,
    );
    expect(performance.now() - started).to.be.below(1000);
    expect(urlFits('https://x/orders/*', 'https://x/orders/42')).to.equal(true);
    expect(urlFits('https://x/*/items/*', 'https://x/7/items/9')).to.equal(true);
    expect(urlFits('https://x/*/items', 'https://x/7/things')).to.equal(false);
    expect(urlFits('https://x/a*a', 'https://x/a')).to.equal(false);
    expect(urlFits('https://x/exact', 'https://x/exact')).to.equal(true);
  });

  it('when a step opens a handoff, then `handoff` holds, the bot is quiet after it, and `replies` counts that', async () => {
    const result = await run(helpFlow(), {
      steps: [
        { say: 'hi' },
        { say: 'agent', expect: [{ handoff: true }] },
        { say: 'anyone?', expect: [{ replies: 0 }, { handoff: false }] },
      ],
    });
    expect(result.tests[0]!.failures).to.deep.equal([]);
  });

  it('when the knowledge stand-in answers, then the flow says its answer; when none fits, then the test fails naming the question', async () => {
    const flow = faqFlow('faq', 3);
    const answered = await run(flow, {
      stand_ins: {
        knowledge: [{ collection: 'faq', question_contains: 'refund', answer: '30 days.' }],
      },
      steps: [{ say: 'A refund?', expect: [{ text_equals: 'A: 30 days.' }] }],
    });
    expect(answered.tests[0]!.failures).to.deep.equal([]);
    const missing = await run(flow, { steps: [{ say: 'shipping?' }] });
    expect(missing.tests[0]!.failures[0]!.message).to.equal(
      'no stand-in answers knowledge of "faq": shipping?',
    );
  });

  it('when an LLM stand-in answers JSON that fails the output schema, then the flow gets the live step’s invalid-output failure', async () => {
    const flow = {
      version: 1,
      start: 'ask',
      states: {
        ask: {
          actions: [
            {
              llm: {
                prompt: 'Sort this order',
                output: {
                  type: 'object',
                  required: ['size'],
                  properties: { size: { type: 'string' } },
                },
                store: 'sorted',
              },
            },
            { send: { text: '{{sorted.size}}{{sorted.code}}' } },
          ],
          end: true,
        },
      },
    };
    const good = await run(flow, {
      stand_ins: { llm: [{ prompt_contains: 'sort', answer: { size: 'L' } }] },
      steps: [{ say: 'go', expect: [{ text_equals: 'L' }] }],
    });
    expect(good.tests[0]!.failures).to.deep.equal([]);
    const bad = await run(flow, {
      stand_ins: { llm: [{ answer: { colour: 'red' } }] },
      steps: [{ say: 'go', expect: [{ text_equals: 'BW_ERR_FLOW_LLM_INVALID_OUTPUT' }] }],
    });
    expect(bad.tests[0]!.failures).to.deep.equal([]);
  });

  it('when a flow calls out more often than a live turn may, then the test meets the same budget refusal', async () => {
    const flow = {
      version: 1,
      start: 'call',
      states: {
        call: {
          actions: [
            { set: { n: '{{n}}x' } },
            { http: { method: 'GET', url: 'https://api.example.test/ping', store: 'r' } },
          ],
          transitions: [{ when: { var: 'r.error' }, to: 'stopped' }, { to: 'call' }],
        },
        stopped: { actions: [{ send: { text: '{{r.code}}' } }], end: true },
      },
    };
    const result = await run(flow, {
      stand_ins: { http: [{ url: 'https://api.example.test/*', body: {} }] },
      steps: [{ say: 'go', expect: [{ text_equals: 'BW_ERR_FLOW_BUDGET' }] }],
    });
    expect(result.tests[0]!.failures).to.deep.equal([]);
  });

  it('when expectations fail, then each names its place and what the bot did instead', async () => {
    const result = await run(helpFlow(), {
      steps: [
        {
          say: 'hi',
          expect: [
            { text_matches: '^Bye' },
            { buttons: ['Nope'] },
            { state: 'nowhere' },
            { variable: 'team', equals: 'x' },
            { ended: true },
            { text_equals: 'x', reply: 9 },
          ],
        },
      ],
    });
    const failures = result.tests[0]!.failures;
    expect(failures.map((f) => f.where)).to.deep.equal([
      'steps[0].expect[0] text_matches "^Bye"',
      'steps[0].expect[1] buttons ["Nope"]',
      'steps[0].expect[2] state "nowhere"',
      'steps[0].expect[3] variable "team" equals "x"',
      'steps[0].expect[4] ended true',
      'steps[0].expect[5] text_equals "x" (reply 9)',
    ]);
    expect(failures[5]!.message).to.match(/^there is no reply 9 \(\d replies\)$/);
  });
});

describe('conversation tests: a test chat made into steps', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, s));
  const row = (s: number, direction: 'in' | 'out', body: Record<string, unknown>, more = {}) => ({
    direction,
    message_type: 'text',
    body,
    sent_by: null,
    turn_id: `turn-${s}`,
    created_at: at(s),
    ...more,
  });

  it('when the chat started a handoff, then the test ends at its step, which expects it, and what followed is left out', () => {
    const rows = [
      row(1, 'in', { text: 'hi' }),
      row(2, 'out', { text: 'Hello' }, { turn_id: 'turn-1' }),
      row(3, 'in', { text: 'agent' }),
      // The handoff starts at 4; the turn's own reply is written after it.
      row(5, 'out', { text: 'A person will answer.' }, { turn_id: 'turn-3' }),
      row(6, 'out', { text: 'Hi, Ana here' }, { sent_by: 'account:ana@example.test' }),
      row(7, 'out', { text: 'Anything else?' }, { turn_id: 'return-1' }),
      row(8, 'in', { text: 'thanks' }),
      row(9, 'out', { text: 'How did we do?' }, { turn_id: 'turn-8' }),
    ];
    expect(stepsOfTranscript(rows, { state: 'survey', ended: false }, at(4))).to.deep.equal([
      { say: 'hi', expect: [{ text_equals: 'Hello', reply: 0 }] },
      {
        say: 'agent',
        expect: [{ text_equals: 'A person will answer.', reply: 0 }, { handoff: true }],
      },
    ]);
  });

  it('when the chat had no handoff, then the last step expects where the conversation is', () => {
    const rows = [row(1, 'in', { text: 'hi' }), row(2, 'out', { text: 'Hello' })];
    expect(stepsOfTranscript(rows, { state: null, ended: true })).to.deep.equal([
      { say: 'hi', expect: [{ text_equals: 'Hello', reply: 0 }, { ended: true }] },
    ]);
  });
});
