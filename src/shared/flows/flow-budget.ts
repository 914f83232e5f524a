/**
 * Whether a flow fits the budgets of one turn (`FLOW_HTTP_MAX_STEPS`, `FLOW_HTTP_TURN_BUDGET_MS`).
 * A turn runs from where the user's message (or an answer) lands until a wait, an `answer_from`,
 * a language choice or an end; this counts, over every such stretch, the most HTTP steps it can
 * make and the sum of their `timeout_ms`. A flow over budget still runs (the steps past the budget
 * fail with `BW_ERR_FLOW_BUDGET` and go to the flow's error path), so these are warnings.
 */
import {
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_LLM_TIMEOUT_MS,
  type Flow,
  type FlowState,
} from './types.ts';

/** The per-turn budgets a flow is checked against. */
export interface FlowBudget {
  /** HTTP steps one turn may make. @defaultValue 10 */
  httpSteps: number;
  /** Time one turn's HTTP steps may take together (milliseconds). @defaultValue 30000 */
  httpMs: number;
}

/** The defaults of `FLOW_HTTP_MAX_STEPS` and `FLOW_HTTP_TURN_BUDGET_MS`. */
export const DEFAULT_FLOW_BUDGET: FlowBudget = { httpSteps: 10, httpMs: 30_000 };

interface Cost {
  steps: number;
  ms: number;
  /** HTTP steps can repeat without the turn ending (a loop through an HTTP step). */
  loops: boolean;
}

const NONE: Cost = { steps: 0, ms: 0, loops: false };

function targets(state: FlowState): string[] {
  return [
    ...(state.next === undefined ? [] : [state.next]),
    ...(state.transitions ?? []).map((t) => t.to),
  ];
}

/** Where turns begin: the start, after every wait, after every action that ends a turn. */
function turnStarts(flow: Flow): [name: string, index: number][] {
  const starts: [string, number][] = [[flow.start, 0]];
  for (const intent of flow.intents ?? []) {
    if (intent.global && 'to' in intent.global) starts.push([intent.global.to, 0]);
  }
  for (const [name, state] of Object.entries(flow.states)) {
    (state.actions ?? []).forEach((action, i) => {
      if ('answer_from' in action || 'choose_language' in action) starts.push([name, i + 1]);
    });
    if (state.wait) {
      for (const to of [...targets(state), state.wait.on_fail]) if (to) starts.push([to, 0]);
    }
  }
  return starts;
}

/**
 * Warnings for the stretches of one turn that can make more HTTP steps, or wait longer for them,
 * than `budget` allows; each at the JSON Pointer of where that stretch begins.
 */
export function budgetWarnings(
  flow: Flow,
  budget: FlowBudget = DEFAULT_FLOW_BUDGET,
): { path: string; message: string }[] {
  const memo = new Map<string, Cost>();
  const onPath = new Map<string, number>(); // state -> HTTP steps made before entering it

  const fromState = (name: string, index: number, before: number): Cost => {
    const state = Object.hasOwn(flow.states, name) ? flow.states[name] : undefined;
    if (!state) return NONE;
    const key = index === 0 ? name : undefined;
    if (key !== undefined) {
      const seen = onPath.get(key);
      if (seen !== undefined) return { ...NONE, loops: before > seen };
      const known = memo.get(key);
      if (known) return known;
      onPath.set(key, before);
    }
    let steps = 0;
    let ms = 0;
    let cost: Cost | undefined;
    for (const action of (state.actions ?? []).slice(index)) {
      if ('http' in action) {
        steps += 1;
        ms += action.http.timeout_ms ?? DEFAULT_HTTP_TIMEOUT_MS;
      }
      // An llm step shares the turn's time for outside calls; it is not an HTTP step.
      if ('llm' in action) ms += action.llm.timeout_ms ?? DEFAULT_LLM_TIMEOUT_MS;
      if ('answer_from' in action || 'choose_language' in action) {
        cost = { steps, ms, loops: false };
        break;
      }
    }
    if (!cost && state.wait) cost = { steps, ms, loops: false };
    if (!cost) {
      let worst = NONE;
      for (const to of targets(state)) {
        const next = fromState(to, 0, before + steps);
        worst = {
          steps: Math.max(worst.steps, next.steps),
          ms: Math.max(worst.ms, next.ms),
          loops: worst.loops || next.loops,
        };
      }
      cost = { steps: steps + worst.steps, ms: ms + worst.ms, loops: worst.loops };
    }
    if (key !== undefined) {
      onPath.delete(key);
      memo.set(key, cost);
    }
    return cost;
  };

  const warnings: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const [name, index] of turnStarts(flow)) {
    const path = index === 0 ? `/states/${name}` : `/states/${name}/actions/${index - 1}`;
    if (seen.has(path)) continue;
    seen.add(path);
    const cost = fromState(name, index, 0);
    if (cost.loops) {
      warnings.push({
        path,
        message: `a turn from here can repeat HTTP steps without waiting for the user; it stops after ${budget.httpSteps} (FLOW_HTTP_MAX_STEPS) and the next step fails with BW_ERR_FLOW_BUDGET`,
      });
    } else if (cost.steps > budget.httpSteps) {
      warnings.push({
        path,
        message: `a turn from here can make ${cost.steps} HTTP steps, more than ${budget.httpSteps} (FLOW_HTTP_MAX_STEPS); the steps past it fail with BW_ERR_FLOW_BUDGET`,
      });
    }
    if (!cost.loops && cost.ms > budget.httpMs) {
      warnings.push({
        path,
        message: `the HTTP steps of a turn from here may wait ${cost.ms} ms together (their timeout_ms), more than ${budget.httpMs} (FLOW_HTTP_TURN_BUDGET_MS); a step left without time fails with BW_ERR_FLOW_BUDGET`,
      });
    }
  }
  return warnings;
}
