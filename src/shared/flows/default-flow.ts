/**
 * The flow a bot gets when it is created without one (docs/flows.md): a greeting, a menu of two
 * buttons, and an echo mode that repeats what the user writes until they ask for the menu.
 */
import type { Flow } from './types.ts';

export const DEFAULT_FLOW: Flow = {
  version: 1,
  start: 'welcome',
  reset_keywords: ['reset'],
  states: {
    welcome: {
      actions: [
        {
          send: {
            text: 'Hello! This bot has no conversation flow of its own yet, so it runs the default one.',
          },
        },
      ],
      next: 'menu',
    },
    menu: {
      actions: [
        {
          send: {
            text: 'What would you like to do?',
            buttons: [
              { id: 'echo', title: 'Echo my messages' },
              { id: 'about', title: 'About this bot' },
            ],
          },
        },
      ],
      wait: { store: 'choice', expect: 'choice' },
      transitions: [{ when: { '==': [{ var: 'choice' }, 'about'] }, to: 'about' }, { to: 'echo' }],
    },
    about: {
      actions: [
        {
          send: {
            text: 'This is a botwire bot. Its operator can give it a flow of states, buttons, questions and knowledge answers through the admin API.',
          },
        },
      ],
      next: 'menu',
    },
    echo: {
      actions: [
        { send: { text: 'Send me anything and I will say it back. Send "menu" to stop.' } },
      ],
      next: 'echo_wait',
    },
    echo_wait: {
      wait: { store: 'last_input' },
      transitions: [
        { when: { in: [{ var: 'last_input' }, ['menu', 'Menu', 'MENU']] }, to: 'menu' },
        { to: 'echo_reply' },
      ],
    },
    echo_reply: {
      actions: [{ send: { text: 'You said: {{last_input}}' } }],
      next: 'echo_wait',
    },
  },
};
