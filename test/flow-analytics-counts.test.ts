/**
 * What one turn adds to a bot's analytics (`src/flow/analytics/turn-counts.ts`), read off the
 * engine's steps: flows started, states entered and left, ends, re-asks, fallbacks, handoffs and
 * unanswered knowledge questions; a test chat adds nothing.
 */
import { expect } from 'chai';
import { countTurn, type TurnOutcome } from '../src/flow/analytics/turn-counts.ts';

const turn = (over: Partial<TurnOutcome>): TurnOutcome => ({
  conversationId: '00000000-0000-4000-8000-000000000001',
  appId: 'app',
  channelType: 'telegram',
  now: new Date('2026-11-29T23:59:59Z'),
  steps: [],
  firstTurn: false,
  userMessage: true,
  sent: 0,
  handoffOpened: false,
  ...over,
});

describe('flow analytics: what a turn counts', () => {
  it('when a first message starts the flow and it runs through two states to an end, then one conversation, two entries, one way on and one completion', () => {
    const counts = countTurn(
      turn({
        firstTurn: true,
        sent: 2,
        language: 'en',
        flowVersion: 3,
        steps: [
          { start: 'a' },
          { enter: 'a' },
          { next: { from: 'a', to: 'b' } },
          { enter: 'b' },
          { end: 'b' },
        ],
      }),
    )!;
    expect(counts).to.deep.include({
      day: '2026-11-29',
      language: 'en',
      flow_version: 3,
      conversations: 1,
      new_users: 1,
      messages_in: 1,
      messages_out: 2,
      completed: 1,
    });
    expect(counts.states).to.deep.equal([
      { state: 'a', entered: 1, left_forward: 1, ended: 0, reasks: 0, fallbacks: 0, handoffs: 0 },
      { state: 'b', entered: 1, left_forward: 0, ended: 1, reasks: 0, fallbacks: 0, handoffs: 0 },
    ]);
  });

  it('when an answer is asked again, a wait gives up and a handoff starts, then each is counted on its state', () => {
    const asked = countTurn(turn({ steps: [{ retry: 'menu' }] }))!;
    expect([asked.reasks, asked.states[0]!.reasks]).to.deep.equal([1, 1]);
    const gaveUp = countTurn(
      turn({
        steps: [{ fallback: 'menu' }, { enter: 'human' }],
        handoffOpened: true,
        handoffFrom: 'human',
      }),
    )!;
    expect(gaveUp).to.deep.include({ fallbacks: 1, handoffs: 1, conversations: 0 });
    expect(gaveUp.states).to.deep.equal([
      {
        state: 'menu',
        entered: 0,
        left_forward: 1,
        ended: 0,
        reasks: 0,
        fallbacks: 1,
        handoffs: 0,
      },
      {
        state: 'human',
        entered: 1,
        left_forward: 0,
        ended: 0,
        reasks: 0,
        fallbacks: 0,
        handoffs: 1,
      },
    ]);
  });

  it('when the flow takes a knowledge answer with nothing relevant, then it is one unanswered question and no user message; one it found is not', () => {
    const counts = countTurn(
      turn({ userMessage: false, steps: [{ knowledge: { state: 'ask', found: false } }] }),
    )!;
    expect(counts).to.deep.include({ unanswered: 1, messages_in: 0 });
    const found = countTurn(turn({ steps: [{ knowledge: { state: 'ask', found: true } }] }))!;
    expect(found.unanswered).to.equal(0);
  });

  it('when a first message hands the conversation over (a keyword, no state yet), then the handoff counts for the bot and no state', () => {
    const counts = countTurn(turn({ steps: [], handoffOpened: true, firstTurn: true }))!;
    expect(counts).to.deep.include({ handoffs: 1 });
    expect(counts.states).to.deep.equal([]);
  });

  it('when the turn is a test chat’s, then it counts nothing', () => {
    expect(countTurn(turn({ channelType: 'console', steps: [{ start: 'a' }] }))).to.equal(null);
  });
});
