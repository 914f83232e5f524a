/** Bad input to the topic scripts: ./scripts/send-message.sh <topic> '<json>'. */
import type { ScriptCase } from './types.ts';
import { nested } from './types.ts';

const INDEXER = { collection_name: 'faq', files: ['a.pdf'] };
const CHANNEL_IN = {
  source: 'telegram',
  turn_id: 't-1',
  intent: 'channel_in',
  bot_input: { kind: 'update', app_id: 'a', channel_id: 'c', channel_type: 'telegram' },
};

const send = (
  name: string,
  kind: string,
  topic: string,
  json: string,
  code: string,
): ScriptCase => ({
  name,
  kind,
  surface: 'scripts',
  script: 'send-message.sh',
  args: [topic, json],
  exit: 2,
  code,
});

const malformed = 'BW_ERR_MESSAGE_MALFORMED';
const invalid = 'BW_ERR_MESSAGE_INVALID';
const unknown = 'BW_ERR_UNKNOWN_TOPIC';
const ok = JSON.stringify(INDEXER);

export const SCRIPT_CASES: ScriptCase[] = [
  send('truncated JSON', 'malformed-json', 'indexer', '{"collection_name":', malformed),
  send('single-quoted JSON', 'malformed-json', 'indexer', "{'collection_name':'faq'}", malformed),
  send(
    'a trailing comma',
    'malformed-json',
    'indexer',
    '{"collection_name":"faq","files":["a.pdf"],}',
    malformed,
  ),
  send('an empty message', 'malformed-json', 'indexer', '', malformed),
  send('plain text', 'malformed-json', 'indexer', 'index faq please', malformed),
  send(
    'a message nested 30,000 arrays deep',
    'nesting',
    'channel',
    JSON.stringify({ ...CHANNEL_IN, x: 'X' }).replace('"X"', nested(30_000)),
    malformed,
  ),
  send(
    '__proto__ in a channel message',
    'prototype-pollution',
    'channel',
    JSON.stringify(CHANNEL_IN).replace('{', '{"__proto__":{"polluted":true},'),
    invalid,
  ),
  send(
    'constructor.prototype in an indexer message',
    'prototype-pollution',
    'indexer',
    ok.replace('{', '{"constructor":{"prototype":{"x":1}},'),
    invalid,
  ),
  send('a JSON array', 'wrong-type', 'indexer', '[]', invalid),
  send('JSON null', 'wrong-type', 'indexer', 'null', invalid),
  send('a JSON number', 'wrong-type', 'indexer', '42', invalid),
  send(
    'indexer message without files',
    'missing-field',
    'indexer',
    '{"collection_name":"faq"}',
    invalid,
  ),
  send(
    'indexer files as a string',
    'wrong-type',
    'indexer',
    '{"collection_name":"faq","files":"a.pdf"}',
    invalid,
  ),
  send(
    'indexer files empty',
    'missing-field',
    'indexer',
    '{"collection_name":"faq","files":[]}',
    invalid,
  ),
  send(
    'collection name with path traversal',
    'wrong-type',
    'indexer',
    '{"collection_name":"../../etc","files":["a.pdf"]}',
    invalid,
  ),
  send(
    'file name with a slash',
    'wrong-type',
    'indexer',
    '{"collection_name":"faq","files":["../../etc/passwd"]}',
    invalid,
  ),
  send(
    'chunk_size as a string',
    'wrong-type',
    'indexer',
    '{"collection_name":"faq","files":["a.pdf"],"chunk_size":"big"}',
    invalid,
  ),
  send(
    'an unknown field',
    'wrong-type',
    'indexer',
    '{"collection_name":"faq","files":["a.pdf"],"rm":"-rf"}',
    invalid,
  ),
  send(
    'collection name with SQL injection',
    'sql-injection',
    'indexer',
    `{"collection_name":"faq'; drop table bots; --","files":["a.pdf"]}`,
    invalid,
  ),
  send(
    'collection name of 100 KiB',
    'huge',
    'indexer',
    JSON.stringify({ collection_name: 'c'.repeat(100 * 1024), files: ['a.pdf'] }),
    invalid,
  ),
  send(
    'retriver query of 2,001 characters',
    'huge',
    'retriver',
    JSON.stringify({ source: 's', collection_name: 'faq', query: 'q'.repeat(2001) }),
    invalid,
  ),
  send(
    'channel message with intent "eval"',
    'wrong-type',
    'channel',
    JSON.stringify({ ...CHANNEL_IN, intent: 'eval' }),
    invalid,
  ),
  send(
    'channel_in without bot_input',
    'missing-field',
    'channel',
    JSON.stringify({ source: 's', turn_id: 't', intent: 'channel_in' }),
    invalid,
  ),
  send(
    'template injection as the collection name',
    'template-injection',
    'indexer',
    `{"collection_name":"{{constructor.constructor('return process')()}}","files":["a.pdf"]}`,
    invalid,
  ),
  send('an unknown topic', 'unknown-topic', 'nope', ok, unknown),
  send('a topic in upper case', 'unknown-topic', 'INDEXER', ok, unknown),
  send('a topic with path traversal', 'unknown-topic', '../indexer', ok, unknown),
  send('a topic named __proto__', 'prototype-pollution', '__proto__', ok, unknown),
  send('a topic with a Redis hash tag', 'unknown-topic', '{indexer}', ok, unknown),
];
