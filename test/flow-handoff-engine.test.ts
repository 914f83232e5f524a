/**
 * The pure engine's side of a handoff (docs/handoff.md): the step, bot keywords, the quiet while a
 * person has the conversation, and the three ways a handoff ends; and the flow's validation of it.
 */
import { expect } from 'chai';
import { runTurn } from '../src/flow/engine/run-turn.ts';
import {
  newConversation,
  type ConversationState,
  type FlowEvent,
  type TurnResult,
} from '../src/flow/engine/types.ts';
import { handoffIdOf } from '../src/flow/handoff-store.ts';
import { validateFlow } from '../src/shared/flows/validate-flow.ts';
import type { Flow } from '../src/shared/flows/types.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import { helpFlow } from './support/flows.ts';

const say = (text: string): FlowEvent => ({ type: 'input', text, message_type: 'text' });

const FLOW = helpFlow({
  message: 'Hold on {{pick}}, a person from {{team}} is coming.',
  afterSurvey: 'menu',
}) as unknown as Flow;

/** A conversation driven turn by turn; handoff ids h1, h2, ... */
function talk(flow: Flow, keywords: string[] = []) {
  let counter = 0;
  let handoffs = 0;
  let state: ConversationState = newConversation();
  const send = (event: FlowEvent): TurnResult => {
    const result = runTurn(flow, state, event, {
      newRequestId: () => `r${++counter}`,
      newHandoffId: () => `h${++handoffs}`,
      now: '2026-11-26T10:00:00.000Z',
      handoffKeywords: keywords,
    });
    state = result.state;
    return result;
  };
  const texts = (event: FlowEvent): string[] =>
    send(event).outputs.map((o) => ('text' in o ? o.text : o.message_type));
  return { send, texts, state: () => state };
}

describe('flow engine: handoff', () => {
  it('when a state runs a handoff step, then its message is sent templated, the state holds the handoff and the turn reports it', () => {
    const c = talk(FLOW);
    c.send(say('hi'));
    const result = c.send(say('help'));
    expect(result.outputs).to.deep.equal([
      { message_type: 'text', text: 'Hold on help, a person from billing is coming.' },
    ]);
    expect(result.handoff).to.deep.equal({
      id: 'h1',
      reason: 'step',
      queue: 'billing',
      fallback: 'sorry',
    });
    expect(result.effects).to.deep.equal([]);
    expect(c.state()).to.deep.include({
      state: 'human',
      handoff: { id: 'h1', since: '2026-11-26T10:00:00.000Z' },
    });
    expect(c.state().awaiting).to.equal(undefined);
  });

  it('when a person has the conversation, then input, resets and effect results change nothing and say nothing', () => {
    const c = talk({ ...FLOW, reset_keywords: ['restart'] });
    c.send(say('hi'));
    c.send(say('help'));
    const before = c.state();
    for (const event of [
      say('hello?'),
      say('restart'),
      { type: 'reset' } as FlowEvent,
      { type: 'effect_result', request_id: 'r1', ok: true } as FlowEvent,
    ]) {
      const result = c.send(event);
      expect(result.outputs).to.deep.equal([]);
      expect(result.handoff).to.equal(undefined);
      expect(c.state()).to.deep.equal(before);
    }
  });

  it('when the handoff returns at a state, then that state runs and the handoff is cleared', () => {
    const c = talk(FLOW);
    c.send(say('hi'));
    c.send(say('help'));
    expect(
      c.texts({ type: 'handoff_end', id: 'h1', action: 'return', state: 'survey' }),
    ).to.deep.equal(['How did we do?']);
    expect(c.state().handoff).to.equal(undefined);
    expect(c.state().awaiting).to.deep.equal({ kind: 'input', state: 'survey', retries: 0 });
    expect(c.state().vars).to.include({ pick: 'help', team: 'billing' });
  });

  it('when the end names another handoff than the open one, then nothing changes', () => {
    const c = talk(FLOW);
    c.send(say('hi'));
    c.send(say('help'));
    const before = c.state();
    const result = c.send({ type: 'handoff_end', id: 'other', action: 'close' });
    expect(result.outputs).to.deep.equal([]);
    expect(c.state()).to.deep.equal(before);
  });

  it('when the handoff times out, then the fallback state runs', () => {
    const c = talk(FLOW);
    c.send(say('hi'));
    c.send(say('help'));
    expect(
      c.texts({ type: 'handoff_end', id: 'h1', action: 'timeout', state: 'sorry' }),
    ).to.deep.equal(['Nobody is free; back to the bot.', 'Menu: say help for a person.']);
    expect(c.state().handoff).to.equal(undefined);
  });

  it('when the handoff is closed, then the conversation ends quietly and the next input starts over', () => {
    const c = talk(FLOW);
    c.send(say('hi'));
    c.send(say('help'));
    expect(c.texts({ type: 'handoff_end', id: 'h1', action: 'close' })).to.deep.equal([]);
    expect(c.state()).to.deep.include({ state: 'human', ended: true });
    expect(c.state().handoff).to.equal(undefined);
    expect(c.texts(say('hello again'))).to.deep.equal(['Menu: say help for a person.']);
  });

  it('when a return names a state the flow no longer has, then the conversation starts over at start', () => {
    const c = talk(FLOW);
    c.send(say('hi'));
    c.send(say('help'));
    expect(
      c.texts({ type: 'handoff_end', id: 'h1', action: 'return', state: 'gone' }),
    ).to.deep.equal(['Menu: say help for a person.']);
    expect(c.state().vars).to.deep.equal({});
  });

  it('when the whole input equals a bot keyword in any case, then a handoff starts with no queue, falling back to the state it waited in', () => {
    const c = talk(FLOW, ['Agent', 'human']);
    c.send(say('hi'));
    const result = c.send(say('  aGENT '));
    expect(result.outputs).to.deep.equal([]);
    expect(result.handoff).to.deep.equal({ id: 'h1', reason: 'keyword', fallback: 'menu' });
    // Where it stood is kept: the fallback asks again.
    expect(c.state().awaiting).to.deep.equal({ kind: 'input', state: 'menu', retries: 0 });
    expect(
      c.texts({ type: 'handoff_end', id: 'h1', action: 'timeout', state: 'menu' }),
    ).to.deep.equal(['Menu: say help for a person.']);
  });

  it('when a keyword is only part of the input, then it is an ordinary answer', () => {
    const c = talk(FLOW, ['agent']);
    c.send(say('hi'));
    const result = c.send(say('agent please'));
    expect(result.handoff).to.equal(undefined);
    expect(c.state().handoff).to.equal(undefined);
  });

  it('when a keyword is the first message of a conversation, then the fallback is start', () => {
    const c = talk(FLOW, ['agent']);
    const result = c.send(say('agent'));
    expect(result.handoff).to.deep.include({ reason: 'keyword', fallback: 'menu' });
    expect(result.outputs).to.deep.equal([]);
  });

  it('when a handoff id is made from a turn, then it is a UUID, the same for the same turn and different for another', () => {
    const a = handoffIdOf('c1', 't1');
    expect(a).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(handoffIdOf('c1', 't1')).to.equal(a);
    expect(handoffIdOf('c1', 't2')).to.not.equal(a);
    expect(handoffIdOf('c2', 't1')).to.not.equal(a);
  });
});

describe('flow validation: handoff', () => {
  const schemas = new SchemaRegistry();

  it('when a handoff step is valid, then the flow passes and its fallback counts as reachable', () => {
    const result = validateFlow(schemas, FLOW);
    expect(result.ok).to.equal(true);
    expect(result.warnings.map((w) => w.path)).to.deep.equal(['/states/survey']);
  });

  it('when the fallback names no state, then a problem points at it', () => {
    const flow = structuredClone(FLOW) as unknown as {
      states: { human: { actions: { handoff?: { fallback: string } }[] } };
    };
    flow.states.human.actions[1]!.handoff!.fallback = 'nowhere';
    const result = validateFlow(schemas, flow);
    expect(result.ok).to.equal(false);
    expect(result.ok ? [] : result.problems).to.deep.equal([
      { path: '/states/human/actions/1/handoff/fallback', message: 'names no state ("nowhere")' },
    ]);
  });

  it('when the fallback is missing or an action follows the handoff, then the flow is refused', () => {
    const missing = structuredClone(FLOW) as any;
    delete missing.states.human.actions[1].handoff.fallback;
    expect(validateFlow(schemas, missing).ok).to.equal(false);
    const after = structuredClone(FLOW) as any;
    after.states.human.actions.push({ send: { text: 'never' } });
    const result = validateFlow(schemas, after);
    expect(result.ok ? [] : result.problems.map((p) => p.path)).to.deep.equal([
      '/states/human/actions/2',
    ]);
  });
});
