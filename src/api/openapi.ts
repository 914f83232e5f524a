/** The OpenAPI description served at GET /v2/openapi.json; request bodies are the JSON Schemas. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../shared/errors.ts';
import { SCHEMAS_DIR } from '../shared/schemas.ts';
import { auditPaths, auditSchemas } from './openapi-audit.ts';
import { accountPaths, accountSchemas } from './openapi-accounts.ts';
import { consolePaths, consoleSchemas } from './openapi-console.ts';
import { eventSchemas, eventsPaths } from './openapi-events.ts';
import { handoffPaths, handoffSchemas } from './openapi-handoffs.ts';
import { testChatPaths } from './openapi-test-chats.ts';
import { analyticsPaths } from './openapi-analytics.ts';
import { outboundPaths } from './openapi-outbound.ts';
import { broadcastPaths, broadcastSchemas } from './openapi-broadcasts.ts';
import { conversationTestPaths } from './openapi-conversation-tests.ts';
import { versionPaths } from './openapi-versions.ts';
import { webPaths, webSchemas, webSecuritySchemes } from './openapi-web.ts';
import { knowledgeSchemas } from './openapi-knowledge-schemas.ts';
import { opsPaths, opsSchemas } from './openapi-ops.ts';
import { admin, appId, error, page, returns } from './openapi-parts.ts';

function schema(name: string): Record<string, unknown> {
  const loaded = JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
  // OpenAPI components reference each other by #/components/schemas/<name> (a schema names
  // another of schemas/http by its name), and a schema's own $defs by its place in the document
  // (a bare #/$defs would point at the document's root).
  const component = `#/components/schemas/${name.replace(/^http\//, '')}`;
  return JSON.parse(
    JSON.stringify(loaded)
      .replace(/"\$ref":"([a-z-]+)"/g, '"$ref":"#/components/schemas/$1"')
      .replace(/"\$ref":"#\/\$defs\//g, `"$ref":"${component}/$defs/`),
  ) as Record<string, unknown>;
}

const channelId = {
  name: 'channel_id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
const json = (ref: string) => ({
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const ok = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object' } } },
});

const collection = {
  name: 'name',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' },
};

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'botwire',
      version: '2',
      description:
        'Platform callbacks and the admin API of botwire. Every error is {"error":{"code","message"}} with a code from docs/errors.md.',
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'ADMIN_API_KEY from the env file, or a personal API token (bwp_...)',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'bw_session',
          description:
            'A console session (POST /v2/session); POST, PUT, PATCH and DELETE need a same-origin Origin header',
        },
        ...webSecuritySchemes,
      },
      responses: {
        error: {
          description: 'An error with a stable code',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  error: {
                    type: 'object',
                    required: ['code', 'message'],
                    properties: {
                      code: { enum: Object.keys(ERRORS) },
                      message: { type: 'string' },
                      details: { type: 'object' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      schemas: {
        'telegram-update': schema('http/telegram-update'),
        'whatsapp-callback': schema('http/whatsapp-callback'),
        'create-bot': schema('http/create-bot'),
        'patch-bot': schema('http/patch-bot'),
        channel: schema('http/channel'),
        'patch-channel': schema('http/patch-channel'),
        'messaging-limit': schema('http/messaging-limit'),
        'index-collection': schema('http/index-collection'),
        'patch-collection': schema('http/patch-collection'),
        ...eventSchemas,
        'flow-draft': schema('http/flow-draft'),
        'publish-flow': schema('http/publish-flow'),
        'outbound-message': schema('http/outbound-message'),
        'handoff-message': schema('http/handoff-message'),
        'send-message': schema('http/send-message'),
        'create-broadcast': schema('http/create-broadcast'),
        ...broadcastSchemas,
        'test-chat': schema('http/test-chat'),
        'test-chat-message': schema('http/web-message'),
        'conversation-test': schema('http/conversation-test'),
        'tests-run': schema('http/tests-run'),
        'test-from-chat': schema('http/test-from-chat'),
        'session-request': schema('http/session'),
        'create-account': schema('http/create-account'),
        'patch-account': schema('http/patch-account'),
        'create-token': schema('http/create-token'),
        'create-invite': schema('http/create-invite'),
        'accept-invite': schema('http/accept-invite'),
        ...accountSchemas,
        ...consoleSchemas,
        ...webSchemas,
        ...opsSchemas(),
        ...knowledgeSchemas,
        ...auditSchemas,
        ...handoffSchemas,
      },
    },
    paths: {
      ...consolePaths,
      ...auditPaths,
      ...accountPaths,
      ...eventsPaths,
      ...versionPaths,
      ...testChatPaths,
      ...analyticsPaths,
      ...outboundPaths,
      ...broadcastPaths,
      ...conversationTestPaths,
      ...handoffPaths,
      ...webPaths,
      '/v2/callback/telegram/{app_id}': {
        post: {
          summary: 'A Telegram update (X-Telegram-Bot-Api-Secret-Token required)',
          parameters: [
            appId,
            {
              name: 'X-Telegram-Bot-Api-Secret-Token',
              in: 'header',
              required: true,
              schema: { type: 'string' },
            },
          ],
          requestBody: json('telegram-update'),
          responses: { 200: ok('Accepted, ignored or duplicate'), '4XX': error, 503: error },
        },
      },
      '/callback': {
        post: {
          summary: 'A WhatsApp Cloud API webhook; the bot is found by metadata.phone_number_id',
          parameters: [{ name: 'X-Hub-Signature-256', in: 'header', schema: { type: 'string' } }],
          requestBody: json('whatsapp-callback'),
          responses: {
            200: ok('Accepted (counts of new and duplicate items)'),
            '4XX': error,
            503: error,
          },
        },
        get: {
          summary: 'WhatsApp webhook verification: answers hub.challenge',
          parameters: ['hub.mode', 'hub.verify_token', 'hub.challenge'].map((name) => ({
            name,
            in: 'query',
            required: true,
            schema: { type: 'string' },
          })),
          responses: {
            200: { description: 'hub.challenge as text/plain' },
            400: error,
            403: error,
          },
        },
      },
      '/v2/callback/whatsapp/{app_id}': {
        post: {
          summary: 'A WhatsApp webhook for one bot',
          parameters: [appId],
          requestBody: json('whatsapp-callback'),
          responses: { 200: ok('Accepted'), '4XX': error, 503: error },
        },
        get: {
          summary: 'WhatsApp webhook verification for one bot',
          parameters: [appId],
          responses: { 200: { description: 'hub.challenge' }, '4XX': error },
        },
      },
      '/v2/bots': {
        post: {
          ...admin,
          summary: 'Create a bot with its first channel',
          requestBody: json('create-bot'),
          responses: {
            201: returns(
              'The bot, with each channel callback_url, and `warnings` [{path, message}] about its flow (never a refusal: unreachable states, a turn over the HTTP budgets)',
              'bot',
            ),
            '4XX': error,
          },
        },
        get: {
          ...admin,
          summary: 'List bots',
          parameters: page,
          responses: { 200: returns('{items, next_after}', 'bot-page'), '4XX': error },
        },
      },
      '/v2/bots/{app_id}': {
        get: {
          ...admin,
          parameters: [appId],
          responses: { 200: returns('The bot', 'bot'), '4XX': error },
        },
        patch: {
          ...admin,
          parameters: [appId],
          requestBody: json('patch-bot'),
          responses: {
            200: returns(
              'The bot, and `warnings` [{path, message}] about the flow sent, if any',
              'bot',
            ),
            '4XX': error,
          },
        },
        delete: {
          ...admin,
          parameters: [appId],
          responses: {
            204: { description: 'Deleted with its channels and conversations' },
            '4XX': error,
          },
        },
      },
      '/v2/bots/{app_id}/channels': {
        post: {
          ...admin,
          parameters: [appId],
          requestBody: json('channel'),
          responses: { 201: returns('The channel', 'channel-view'), '4XX': error },
        },
      },
      '/v2/bots/{app_id}/channels/{channel_id}': {
        patch: {
          ...admin,
          summary:
            "Replace a channel's details (a web channel's allowed origins, a new Telegram token: register its webhook again, WhatsApp credentials); what botwire made for it stays",
          parameters: [appId, channelId],
          requestBody: json('patch-channel'),
          responses: { 200: returns('The channel', 'channel-view'), '4XX': error },
        },
        delete: {
          ...admin,
          summary:
            'Remove a channel, and with it its conversations and their transcripts; the bot and its other channels stay',
          parameters: [appId, channelId],
          responses: { 204: { description: 'Removed' }, '4XX': error },
        },
      },
      '/v2/bots/{app_id}/channels/{channel_id}/messaging-limit': {
        put: {
          ...admin,
          summary:
            "Set a WhatsApp channel's messaging limit (Meta's tier), its other details and access token kept; 404 BW_ERR_UNKNOWN_CHANNEL for a channel of another platform",
          parameters: [appId, channelId],
          requestBody: json('messaging-limit'),
          responses: { 200: returns('The channel', 'channel-view'), '4XX': error },
        },
      },
      '/v2/bots/{app_id}/channels/{channel_id}/webhook': {
        post: {
          ...admin,
          summary: "Register a Telegram channel's webhook (setWebhook with url and secret_token)",
          parameters: [appId, channelId],
          responses: {
            200: returns('{ok, url, registered_at, telegram}', 'webhook-result'),
            '4XX': error,
            502: error,
          },
        },
      },
      '/v2/conversations/{id}/messages': {
        get: {
          ...admin,
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
            ...page,
          ],
          responses: { 200: returns('{items, next_after}', 'message-page'), '4XX': error },
        },
      },
      '/v2/collections/{name}/files': {
        post: {
          ...admin,
          summary:
            'Upload documents (.pdf, .xlsx, .xls, .ods, .csv) to a collection: one multipart file part each, named by its filename (a plain file name: 400 BW_ERR_FILE_NAME otherwise), all or none. A name already stored is 409 BW_ERR_FILE_EXISTS unless replace=true; passing a quota is 413 BW_ERR_UPLOAD_QUOTA',
          parameters: [
            collection,
            {
              name: 'replace',
              in: 'query',
              description: 'true replaces documents of the same names',
              schema: { type: 'string', enum: ['true', 'false'] },
            },
          ],
          requestBody: {
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  additionalProperties: { type: 'string', format: 'binary' },
                },
              },
            },
          },
          responses: {
            201: returns('{collection, files: [{name, bytes, sha256}]}', 'upload-result'),
            '4XX': error,
          },
        },
      },
      '/v2/collections/{name}': {
        get: {
          ...admin,
          summary:
            'A collection: which bots may read it, uploaded files, what is indexed, the last job',
          parameters: [collection],
          responses: {
            200: returns(
              '{collection, owner_app_id, shared, uploaded_files, indexed, last_job}',
              'collection',
            ),
            '4XX': error,
          },
        },
        patch: {
          ...admin,
          summary:
            "Set which bots' flows may answer from the collection: its owner bot (owner_app_id, or null) and whether every bot may (shared). A new collection is owned by none and not shared; collections that existed before ownership are shared. A flow asking a collection its bot may not read gets an error starting with BW_ERR_COLLECTION_FORBIDDEN. Also its embedding model (local, api, none; a change re-indexes an indexed collection, reindex_job_id) and relevance threshold (min_similarity)",
          parameters: [collection],
          requestBody: { required: true, ...json('patch-collection') },
          responses: {
            200: returns(
              '{collection, owner_app_id, shared, embedding_model, min_similarity, reindex_job_id?}',
              'collection-ownership',
            ),
            '4XX': error,
          },
        },
      },
      '/v2/collections/{name}/index': {
        post: {
          ...admin,
          summary:
            'Start (re)indexing: every uploaded document, or the files named; the same work as an indexer topic message',
          parameters: [collection],
          requestBody: { required: false, ...json('index-collection') },
          responses: {
            202: returns('{job_id, collection, files, status}', 'index-started'),
            '4XX': error,
            503: error,
          },
        },
      },
      '/v2/index-jobs/{job_id}': {
        get: {
          ...admin,
          summary: 'Progress and per-file outcome of an indexing job',
          parameters: [{ name: 'job_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: returns(
              '{job_id, collection, status, progress, files: [{name, status, ...}], ...}',
              'index-job',
            ),
            '4XX': error,
          },
        },
      },
      '/v2/collections/{name}/search': {
        get: {
          ...admin,
          summary:
            'Search a collection by words, by meaning or both (hybrid: reciprocal rank fusion); the default is hybrid when the collection has vectors, else words',
          parameters: [
            collection,
            {
              name: 'q',
              in: 'query',
              required: true,
              schema: { type: 'string', minLength: 1, maxLength: 2000 },
            },
            {
              name: 'k',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
            },
            {
              name: 'mode',
              in: 'query',
              schema: { enum: ['words', 'semantic', 'hybrid'] },
            },
          ],
          responses: {
            200: returns(
              '{collection, language, mode, vectors_model, query, k, hits: [{chunk_id, score, rank, words_score?, vector_score?, source, text, snippet}]}',
              'search-result',
            ),
            '4XX': error,
          },
        },
      },
      '/v2/collections/{name}/unanswered': {
        get: {
          ...admin,
          summary:
            'Knowledge gaps: the questions flows asked that no passage answered well enough, newest first',
          parameters: [
            collection,
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            },
            { name: 'after', in: 'query', schema: { type: 'string' } },
          ],
          responses: {
            200: returns('{collection, items, next_after}', 'unanswered-page'),
            '4XX': error,
          },
        },
      },
      ...opsPaths(),
      '/healthz': {
        get: { summary: 'The process is up', responses: { 200: ok('{status: "ok"}') } },
      },
      '/readyz': {
        get: {
          summary: 'Redis and Postgres are reachable and the process is not shutting down',
          responses: {
            200: ok('{status: "ready", checks}'),
            503: ok('{status: "unavailable" or "draining", checks}'),
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          responses: { 200: { description: 'text/plain exposition format' } },
        },
      },
    },
  };
}
