/** A state in a few short lines for its node in the graph: what it does, whether it waits. */
import { isRecord, type FlowState } from './flow-types.ts';

/** Lines a node shows before "+N more". */
export const MAX_SUMMARY_LINES = 4;
const MAX_LINE_CHARS = 34;

function cut(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function actionLine(action: unknown): string {
  if (!isRecord(action)) return '? not an action';
  const send = action.send;
  if (isRecord(send)) {
    const extras: string[] = [];
    if (Array.isArray(send.buttons)) extras.push(`${send.buttons.length} buttons`);
    if (isRecord(send.list)) extras.push('list');
    if (isRecord(send.image)) extras.push('image');
    if (isRecord(send.document)) extras.push('document');
    const words = str(send.text).replace(/\s+/g, ' ');
    return `says: ${words}${extras.length > 0 ? ` [${extras.join(', ')}]` : ''}`;
  }
  if (isRecord(action.set)) return `set: ${Object.keys(action.set).join(', ')}`;
  if (isRecord(action.http)) {
    const url = str(action.http.url).replace(/^https?:\/\//, '');
    return `http: ${str(action.http.method)} ${url}`;
  }
  if (isRecord(action.answer_from)) return `knowledge: ${str(action.answer_from.collection)}`;
  if (isRecord(action.choose_language)) {
    const options = action.choose_language.options;
    return `language choice: ${Array.isArray(options) ? options.length : 0} options`;
  }
  if (isRecord(action.handoff)) return `handoff, fallback: ${str(action.handoff.fallback)}`;
  if (isRecord(action.llm)) return `llm → ${str(action.llm.store)}`;
  return '? unknown action';
}

/** The node's lines: one per action (at most MAX_SUMMARY_LINES, then "+N more"), then the wait. */
export function stateSummary(state: FlowState): string[] {
  const actions: unknown[] = Array.isArray(state.actions) ? state.actions : [];
  const lines = actions.map((a) => cut(actionLine(a)));
  const shown = lines.slice(0, MAX_SUMMARY_LINES);
  if (lines.length > MAX_SUMMARY_LINES) shown.push(`+${lines.length - MAX_SUMMARY_LINES} more`);
  if (isRecord(state.wait)) {
    const expect = str(state.wait.expect) || 'any';
    shown.push(cut(`waits: ${str(state.wait.store)} (${expect})`));
  }
  if (state.end === true) shown.push('end');
  return shown;
}
