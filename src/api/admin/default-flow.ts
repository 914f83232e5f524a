/**
 * The flow a bot gets when it is created without one: greet, then echo what the user writes.
 * The flow format and its schema are defined with the flow engine; see docs/admin-api.md.
 */
export const DEFAULT_FLOW: Record<string, unknown> = {
  version: 1,
  start: 'welcome',
  states: {
    welcome: {
      say: {
        text: 'Hello! This bot has no conversation flow yet. Send a message and it will be echoed back.',
      },
      next: 'echo',
    },
    echo: {
      wait: { store: 'last_input' },
      say: { text: 'You said: {{last_input}}' },
      next: 'echo',
    },
  },
};
