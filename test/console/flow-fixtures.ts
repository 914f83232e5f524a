/** Flows for the flow editor's tests: big ones built in code. */
import type { Flow, FlowState } from '../../console/src/pages/flow-editor/flow-types.ts';

/**
 * A flow of `count` states in groups of five: a menu with four buttons leading to four steps,
 * each step going on to the next group's menu (the last group ends).
 */
export function chainFlow(count: number): Flow {
  const states: Record<string, FlowState> = {};
  const groups = Math.ceil(count / 5);
  for (let g = 0; g < groups; g++) {
    const menu = `menu_${g}`;
    const steps = [1, 2, 3, 4]
      .map((i) => `step_${g}_${i}`)
      .slice(0, Math.min(4, count - g * 5 - 1));
    const nextMenu = g + 1 < groups ? `menu_${g + 1}` : undefined;
    states[menu] = {
      actions: [
        {
          send: {
            text: `Menu ${g}`,
            buttons: steps.slice(0, 3).map((s) => ({ id: s, title: `Go ${s}` })),
          },
        },
      ],
      wait: { store: 'pick', expect: 'any' },
      transitions: [
        ...steps.map((s) => ({ when: { '==': [{ var: 'pick' }, s] }, to: s })),
        { to: menu },
      ],
    };
    for (const step of steps) {
      states[step] = nextMenu
        ? { actions: [{ send: { text: step } }], next: nextMenu }
        : { actions: [{ send: { text: step } }], end: true };
    }
  }
  return { version: 1, start: 'menu_0', states };
}
