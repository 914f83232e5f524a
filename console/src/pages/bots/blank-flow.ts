/**
 * The flow a bot made with "Start from: a blank flow" gets: one state, `start`, that ends the
 * conversation, to be built on in the flow editor's canvas. The other choice sends no flow, and
 * the server gives the bot its default flow (docs/flows.md).
 */
export const BLANK_FLOW = {
  version: 1,
  start: 'start',
  states: { start: { end: true } },
} as const;
