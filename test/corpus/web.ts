/**
 * The web channel's event stream: positions a client may send (`Last-Event-ID`, `last_event_id`)
 * that are no stream id Redis takes. Each must be refused at the route, before any read shared
 * with other visitors (docs/web-channel.md).
 */
import type { CorpusContext, CorpusRequest, HttpCase } from './types.ts';

const S = 'web';
const refused = { status: 400, code: 'BW_ERR_SCHEMA' } as const;

function events(position: string, where: 'header' | 'query') {
  return (c: CorpusContext): CorpusRequest => ({
    method: 'GET',
    path: `/v2/web/${c.web.appId}/events?token=${encodeURIComponent(c.web.token)}${
      where === 'query' ? `&last_event_id=${encodeURIComponent(position)}` : ''
    }`,
    headers: where === 'header' ? { 'last-event-id': position } : {},
    auth: false,
  });
}

export const WEB_CASES: HttpCase[] = [
  ['18446744073709551616-0', 'header', 'its milliseconds one past 2^64 - 1'],
  ['0-18446744073709551616', 'query', 'its sequence one past 2^64 - 1'],
  ['99999999999999999999-0', 'query', 'twenty nines'],
  ['99999999999999999999-99999999999999999999', 'header', 'both parts past 64 bits'],
  ['1-2-3', 'header', 'three parts'],
  ['-1-0', 'query', 'a negative part'],
].map(([position, where, what]) => ({
  name: `events: a position with ${what} (${where})`,
  kind: 'out-of-range',
  surface: S,
  request: events(position!, where as 'header' | 'query'),
  expect: refused,
}));
