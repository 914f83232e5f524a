/**
 * The test chat's trace of a turn (`console/src/pages/test-chat/turn-trace.ts`): the transcript's
 * notes of what the flow understood by meaning and of its llm steps, as the chat lists them.
 */
import { expect } from 'chai';
import type { TranscriptRow } from '../../console/src/api/types.ts';
import { traceLine, turnTrace } from '../../console/src/pages/test-chat/turn-trace.ts';

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
    ];
    expect(turnTrace(rows).map(traceLine)).to.deep.equal([
      '“fix my bike” → option book (score 0.871) in menu',
      'LLM call: m, 57 tokens, 120 ms, ok',
      'LLM step not made (m): BW_ERR_FLOW_LLM_DAILY_BUDGET',
    ]);
  });
});
