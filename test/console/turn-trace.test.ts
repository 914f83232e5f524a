/**
 * The test chat's trace of a turn (`console/src/pages/test-chat/turn-trace.ts`): the transcript's
 * notes of what the flow understood by meaning and of its llm steps, as the chat lists them.
 */
import { expect } from 'chai';
import type { TranscriptRow } from '../../console/src/api/types.ts';
import { traceLine, turnTrace, turnViews } from '../../console/src/pages/test-chat/turn-trace.ts';

const row = (id: string, body: unknown, messageType = 'note'): TranscriptRow => ({
  id,
  direction: 'out',
  message_type: messageType,
  body,
  status: 'note',
  created_at: '2026-01-01T00:00:00.000Z',
});

describe('test chat: understood and asked', () => {
  it('when the transcript holds match and llm notes among messages, then they are listed in order as lines', () => {
    const rows = [
      row('1', { text: 'hi' }, 'text'),
      row('2', {
        text: 'Understood …',
        understood: { kind: 'option', name: 'book', score: 0.8714, state: 'menu' },
        said: 'fix my bike',
      }),
      row('3', {
        text: 'LLM call …',
        llm_call: { model: 'm', tokens: 57, ms: 120, outcome: 'ok' },
      }),
      row('4', {
        text: 'LLM step not made …',
        llm_call: { model: 'm', tokens: 0, ms: 0, outcome: 'BW_ERR_FLOW_LLM_DAILY_BUDGET' },
      }),
      row('5', { text: 'The conversation was waiting in state …', removed_state: 'x' }),
      row('6', {
        text: 'Understood …',
        understood: { kind: 'intent', name: 'human', score: 0.41, state: 'menu', by: 'llm' },
        said: 'get me out of here',
      }),
    ];
    expect(turnTrace(rows).map(traceLine)).to.deep.equal([
      '“fix my bike” → option book (score 0.871) in menu',
      'LLM call: m, 57 tokens, 120 ms, ok',
      'LLM step not made (m): BW_ERR_FLOW_LLM_DAILY_BUDGET',
      '“get me out of here” → intent human (score 0.410, chosen by the LLM) in menu',
    ]);
  });

  it('when the transcript holds turn traces, then each turn reads as how it began, the states and transitions with their conditions, the calls, the variables changed and what was sent', () => {
    const trace = {
      began: { input: { message_type: 'text', text: '42' } },
      steps: [
        {
          transition: { from: 'ask', to: 'lookup', index: 0, when: { '>': [{ var: 'order' }, 0] } },
        },
        { enter: 'lookup' },
        { effect: { state: 'lookup', kind: 'http' } },
        {
          call: {
            kind: 'http',
            what: 'GET https://api.example/orders/42',
            ms: 35,
            outcome: 'ok (HTTP 200)',
          },
        },
        { call: { kind: 'knowledge', what: 'faq', outcome: 'asked' } },
        { next: { from: 'lookup', to: 'done' } },
        { retry: 'done' },
        { stopped: { state: 'done', code: 'BW_ERR_FLOW_LOOP' } },
        { end: 'done' },
      ],
      vars_before: { order: 41, gone: true },
      vars_after: { order: 42 },
      sent: [{ message_type: 'text', text: 'Order 42: shipped.' }, { message_type: 'image' }],
    };
    const rows = [
      row('1', { text: 'hi' }, 'text'),
      row('2', {
        text: 'Turn trace: ask.',
        trace: {
          began: { input: { message_type: 'text', choice_id: 'book' } },
          steps: [{ wait: 'ask' }],
        },
      }),
      row('3', { text: 'Turn trace: lookup.', trace }),
      row('4', {
        text: 'Turn trace.',
        trace: { began: { effect_result: { ok: true, found: false } }, steps: [] },
      }),
    ];
    expect(turnViews(rows).map(({ began, lines }) => ({ began, lines }))).to.deep.equal([
      { began: 'pressed book', lines: ['waits in ask for an answer'] },
      {
        began: '“42”',
        lines: [
          'ask → lookup: transition 1 (order > 0)',
          'entered lookup',
          'HTTP GET https://api.example/orders/42: ok (HTTP 200), 35 ms',
          'knowledge question to faq: asked',
          'lookup → done: next',
          'the answer did not fit done: asked again',
          'stopped in done: BW_ERR_FLOW_LOOP',
          'the conversation ended in done',
          'set order = 42',
          'cleared gone',
          'sent “Order 42: shipped.”',
          'sent an image',
        ],
      },
      { began: 'the knowledge answer came back (nothing relevant)', lines: [] },
    ]);
  });
});
