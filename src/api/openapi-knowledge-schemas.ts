/**
 * Response schemas of the knowledge routes (`admin/collections.ts`; docs/knowledge.md) and of a
 * conversation's transcript, as `components.schemas` entries, so clients generated from the
 * OpenAPI description (the console's schema.d.ts) get their real shapes.
 */
import { jobStatus, nullable, time } from './openapi-ops-schemas.ts';

const lastJob = nullable({
  type: 'object',
  required: ['job_id', 'status'],
  properties: { job_id: { type: 'string' }, status: jobStatus },
});

const count = { type: 'integer', minimum: 0 };

/** A file's outcome in a job (`FileOutcome` of src/shared/knowledge/jobs.ts, or pending). */
const fileOutcome = {
  type: 'object',
  required: ['name', 'status'],
  properties: {
    name: { type: 'string' },
    status: { enum: ['pending', 'indexed', 'failed'] },
    chunks: { ...count, description: 'indexed: chunks written' },
    pages: { ...count, description: 'indexed PDF: pages read' },
    sheets: { ...count, description: 'indexed spreadsheet: sheets read' },
    rows: { ...count, description: 'indexed spreadsheet: rows read' },
    kept_chunks: { ...count, description: 'failed: chunks of the previous content kept' },
    error: {
      type: 'object',
      description: 'failed: why',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        reason: { type: 'string' },
        message: { type: 'string' },
      },
    },
  },
};

const hitSource = {
  description: 'a PDF page, or a sheet and its first and last row',
  oneOf: [
    {
      type: 'object',
      required: ['file', 'page'],
      properties: { file: { type: 'string' }, page: { type: 'integer' } },
    },
    {
      type: 'object',
      required: ['file', 'sheet', 'rows'],
      properties: {
        file: { type: 'string' },
        sheet: { type: 'string' },
        rows: {
          type: 'array',
          items: { type: 'integer' },
          minItems: 2,
          maxItems: 2,
        },
      },
    },
  ],
};

const ownership = {
  collection: { type: 'string' },
  owner_app_id: { ...nullable({ type: 'string' }), description: 'the bot whose flows may read it' },
  shared: { type: 'boolean', description: 'every bot may read it' },
};

/** `components.schemas` entries of the knowledge and transcript answers. */
export const knowledgeSchemas: Record<string, unknown> = {
  collection: {
    type: 'object',
    required: ['collection', 'owner_app_id', 'shared', 'uploaded_files', 'indexed', 'last_job'],
    properties: {
      ...ownership,
      uploaded_files: { type: 'array', items: { type: 'string' } },
      indexed: nullable({
        type: 'object',
        required: ['language', 'files', 'chunks', 'at'],
        properties: {
          language: { type: 'string' },
          files: count,
          chunks: count,
          at: nullable(time),
        },
      }),
      last_job: lastJob,
    },
  },
  'collection-ownership': {
    type: 'object',
    required: ['collection', 'owner_app_id', 'shared'],
    properties: ownership,
  },
  'upload-result': {
    type: 'object',
    required: ['collection', 'files'],
    properties: {
      collection: { type: 'string' },
      files: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'bytes', 'sha256'],
          properties: { name: { type: 'string' }, bytes: count, sha256: { type: 'string' } },
        },
      },
    },
  },
  'index-started': {
    type: 'object',
    required: ['job_id', 'collection', 'files', 'status'],
    properties: {
      job_id: { type: 'string' },
      collection: { type: 'string' },
      files: { type: 'array', items: { type: 'string' } },
      status: jobStatus,
    },
  },
  'index-job': {
    type: 'object',
    required: [
      'job_id',
      'collection',
      'status',
      'progress',
      'files',
      'attempts',
      'created_at',
      'started_at',
      'finished_at',
    ],
    properties: {
      job_id: { type: 'string' },
      collection: { type: 'string' },
      status: jobStatus,
      progress: {
        type: 'object',
        required: ['files_total', 'files_done', 'chunks_done'],
        properties: { files_total: count, files_done: count, chunks_done: count },
      },
      files: { type: 'array', items: fileOutcome },
      error: { type: 'string', description: 'why the whole job failed' },
      attempts: count,
      created_at: time,
      started_at: nullable(time),
      finished_at: nullable(time),
    },
  },
  'search-result': {
    type: 'object',
    required: ['collection', 'language', 'query', 'k', 'hits'],
    properties: {
      collection: { type: 'string' },
      language: {
        type: 'string',
        description: 'the text search configuration it was indexed with',
      },
      query: { type: 'string' },
      k: { type: 'integer' },
      hits: {
        type: 'array',
        items: {
          type: 'object',
          required: ['chunk_id', 'score', 'source', 'text', 'snippet'],
          properties: {
            chunk_id: { type: 'string' },
            score: { type: 'number' },
            source: hitSource,
            text: { type: 'string' },
            snippet: {
              type: 'string',
              description: 'the best fragments, matched words between <mark> and </mark>',
            },
          },
        },
      },
    },
  },
  'message-page': {
    type: 'object',
    required: ['items', 'next_after'],
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'direction', 'message_type', 'body', 'created_at'],
          properties: {
            id: { type: 'string', description: 'the transcript row, increasing' },
            direction: { enum: ['in', 'out'] },
            turn_id: nullable({ type: 'string' }),
            platform_message_id: nullable({ type: 'string' }),
            message_type: { type: 'string' },
            body: { description: 'the message as the pipeline carried it (schemas/parts)' },
            status: { ...nullable({ type: 'string' }), description: 'out: sent or failed' },
            error: nullable({ type: 'string' }),
            sent_by: {
              ...nullable({ type: 'string' }),
              description: "who wrote it when not the bot: an agent's actor (a reply or a note)",
            },
            created_at: time,
          },
        },
      },
      next_after: {
        ...nullable({ type: 'string' }),
        description: 'pass as `after` for the next page',
      },
    },
  },
};
