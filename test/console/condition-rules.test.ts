/**
 * The condition builder's rules (`condition-rules.ts`): to JSON Logic and back, exactly; other
 * shapes left to the JSON Logic field; the variables a flow offers.
 */
import { expect } from 'chai';
import {
  flowVariables,
  fromLogic,
  toLogic,
  type Rules,
} from '../../console/src/pages/flow-editor/condition-rules.ts';
import type { Flow } from '../../console/src/pages/flow-editor/flow-types.ts';
import { evaluateCondition } from '../../src/flow/engine/condition.ts';

describe('flow editor: conditions from rules', () => {
  it('when rules of every kind are joined by all or any, then the JSON Logic reads back as the same rules and the engine evaluates it as they say', () => {
    const rules: Rules = {
      join: 'and',
      rules: [
        { variable: 'city', op: 'equals', value: 'Oslo' },
        { variable: 'plan', op: 'not_equals', value: 'free' },
        { variable: 'note', op: 'contains', value: 'urgent' },
        { variable: 'email', op: 'is_set', value: '' },
        { variable: 'phone', op: 'not_set', value: '' },
        { variable: 'bikes', op: 'greater', value: '1' },
        { variable: 'bikes', op: 'less', value: '6' },
      ],
    };
    const logic = toLogic(rules);
    expect(fromLogic(logic)).to.deep.equal(rules);
    const vars = { city: 'Oslo', plan: 'pro', note: 'urgent: brakes', email: 'a@b.c', bikes: 2 };
    expect(evaluateCondition(logic, vars)).to.equal(true);
    expect(evaluateCondition(logic, { ...vars, bikes: 7 })).to.equal(false);
    const any = toLogic({ join: 'or', rules: rules.rules.slice(0, 1).concat(rules.rules[5]!) });
    expect(fromLogic(any)).to.deep.equal({
      join: 'or',
      rules: [rules.rules[0], rules.rules[5]],
    });
    expect(evaluateCondition(any, { city: 'Bergen', bikes: 1 })).to.equal(false);
    expect(evaluateCondition(any, { city: 'Oslo', bikes: 0 })).to.equal(true);
    expect(evaluateCondition(any, { city: 'Bergen', bikes: 3 })).to.equal(true);
  });

  it('when a single rule is built, then it is stored alone, not under and', () => {
    const one: Rules = { join: 'and', rules: [{ variable: 'input', op: 'is_set', value: '' }] };
    expect(toLogic(one)).to.deep.equal({ '!!': [{ var: 'input' }] });
    expect(fromLogic({ '!!': [{ var: 'input' }] })).to.deep.equal(one);
  });

  it('when a condition has another shape, then it is not rules', () => {
    for (const when of [
      { intent: 'human' },
      { '==': [{ var: 'a' }, { var: 'b' }] },
      { '>': [{ var: 'n' }, '5'] },
      { and: [] },
      { and: [{ '!!': [{ var: 'x' }] }, { cat: ['a', 'b'] }] },
      { '==': [{ var: 'a' }, 'x'], '!=': [{ var: 'b' }, 'y'] },
    ]) {
      expect(fromLogic(when), JSON.stringify(when)).to.equal(null);
    }
  });

  it('when a flow stores values, then its variables are offered with input and language', () => {
    const flow = {
      version: 1,
      start: 'a',
      states: {
        a: {
          actions: [
            { set: { plan: 'pro' } },
            { http: { method: 'GET', url: 'https://x.example', store: 'order' } },
            { llm: { prompt: 'p', output: 'text', store: 'reply' } },
          ],
          wait: { store: 'city' },
          next: 'a',
        },
      },
    } as unknown as Flow;
    expect(flowVariables(flow)).to.deep.equal([
      'city',
      'input',
      'language',
      'order',
      'plan',
      'reply',
    ]);
  });
});
