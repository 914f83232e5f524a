/** The seven kinds of action, their labels and the action a new one starts as. */
import type { Action } from './flow-types.ts';

export type ActionKind =
  'send' | 'set' | 'http' | 'answer_from' | 'choose_language' | 'handoff' | 'llm';

export const ACTION_KINDS: { kind: ActionKind; label: string }[] = [
  { kind: 'send', label: 'Send a message' },
  { kind: 'set', label: 'Set variables' },
  { kind: 'http', label: 'HTTP request' },
  { kind: 'answer_from', label: 'Answer from knowledge' },
  { kind: 'choose_language', label: 'Choose language' },
  { kind: 'handoff', label: 'Hand off to a person' },
  { kind: 'llm', label: 'Ask the LLM' },
];

/** The kind of an action, or null when it is none of the seven (an invalid draft). */
export function actionKind(action: unknown): ActionKind | null {
  if (typeof action !== 'object' || action === null) return null;
  return ACTION_KINDS.find(({ kind }) => kind in action)?.kind ?? null;
}

/**
 * A new action of `kind` with placeholder values the validator accepts; a handoff falls back to
 * `start`, the flow's start state.
 */
export function newAction(kind: ActionKind, start: string): Action {
  switch (kind) {
    case 'send':
      return { send: { text: 'Hello!' } };
    case 'set':
      return { set: { var_1: '' } };
    case 'http':
      return { http: { method: 'GET', url: 'https://example.com/', store: 'result' } };
    case 'answer_from':
      return { answer_from: { collection: 'faq', query: '{{question}}' } };
    case 'choose_language':
      return {
        choose_language: {
          prompt: 'Which language do you prefer?',
          options: [
            { code: 'en', title: 'English' },
            { code: 'de', title: 'Deutsch' },
          ],
        },
      };
    case 'handoff':
      return { handoff: { message: 'A person will answer you shortly.', fallback: start } };
    case 'llm':
      return { llm: { prompt: 'Answer briefly: {{input}}', output: 'text', store: 'reply' } };
  }
}
