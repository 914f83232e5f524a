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

const searchSettings = {
  embedding_model: {
    ...nullable({ enum: ['local', 'api', 'none'] }),
    description: 'its own choice of embedding model; null: EMBEDDINGS_PROVIDER',
  },
  min_similarity: {
    ...nullable({ type: 'number' }),
    description: 'its own relevance threshold (cosine); null: KNOWLEDGE_MIN_SIMILARITY',
  },
};

/** `components.schemas` entries of the knowledge and transcript answers. */
export const knowledgeSchemas: Record<string, unknown> = {
  collection: {
    type: 'object',
    required: [
      'collection',
      'owner_app_id',
      'shared',
      'embedding_model',
      'embedding_model_effective',
      'min_similarity',
      'min_similarity_effective',
      'uploaded_files',
      'indexed',
      'last_job',
    ],
    properties: {
      ...ownership,
      ...searchSettings,
      embedding_model_effective: {
        enum: ['local', 'api', 'none'],
        description:
          'the model its next index embeds with (embedding_model, else EMBEDDINGS_PROVIDER)',
      },
      min_similarity_effective: {
        type: 'number',
        description:
          'the relevance threshold its answers use (min_similarity, else KNOWLEDGE_MIN_SIMILARITY)',
      },
      uploaded_files: { type: 'array', items: { type: 'string' } },
      indexed: nullable({
        type: 'object',
        required: ['language', 'files', 'chunks', 'at', 'vectors_model'],
        properties: {
          language: { type: 'string' },
          files: count,
          chunks: count,
          at: nullable(time),
          vectors_model: {
            ...nullable({ type: 'string' }),
            description:
              'the model of its vectors (local:use-lite-en, api:<model>); null: searched by words only',
          },
        },
      }),
      last_job: lastJob,
    },
  },
  'collection-ownership': {
    type: 'object',
    required: ['collection', 'owner_app_id', 'shared', 'embedding_model', 'min_similarity'],
    properties: {
      ...ownership,
      ...searchSettings,
      reindex_job_id: {
        type: 'string',
        description: 'the job re-embedding the collection, when the embedding model changed',
      },
    },
  },
  'unanswered-page': {
    type: 'object',
    required: ['collection', 'items', 'next_after'],
    properties: {
      collection: { type: 'string' },
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: [
            'id',
            'question',
            'best_score',
            'mode',
            'app_id',
            'conversation_id',
            'created_at',
          ],
          properties: {
            id: { type: 'string' },
            question: { type: 'string' },
            best_score: {
              ...nullable({ type: 'number' }),
              description: "the best passage's similarity by meaning; null without vectors",
            },
            mode: { enum: ['words', 'semantic', 'hybrid'] },
            app_id: nullable({ type: 'string' }),
            conversation_id: nullable({ type: 'string' }),
            created_at: time,
          },
        },
      },
      next_after: {
        ...nullable({ type: 'string' }),
        description: 'pass as after for the next page (older questions); null on the last',
      },
    },
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
        properties: {
          files_total: count,
          files_done: count,
          chunks_done: count,
          chunks_embedded: { ...count, description: 'vectors this job embedded' },
        },
      },
      embedding_model: { enum: ['local', 'api', 'none'] },
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
    required: ['collection', 'language', 'mode', 'vectors_model', 'query', 'k', 'hits'],
    properties: {
      collection: { type: 'string' },
      language: {
        type: 'string',
        description: 'the text search configuration it was indexed with',
      },
      mode: { enum: ['words', 'semantic', 'hybrid'], description: 'the mode that ran' },
      vectors_model: nullable({ type: 'string' }),
      min_similarity: nullable({ type: 'number' }),
      query: { type: 'string' },
      k: { type: 'integer' },
      hits: {
        type: 'array',
        items: {
          type: 'object',
          required: ['chunk_id', 'score', 'source', 'text', 'snippet', 'rank'],
          properties: {
            chunk_id: { type: 'string' },
            score: {
              type: 'number',
              description:
                'words: the rank score; semantic: the similarity; hybrid: the fused score',
            },
            rank: { type: 'integer', description: '1-based, after fusion in hybrid' },
            words_score: { type: 'number' },
            words_rank: { type: 'integer' },
            words_all: { type: 'boolean', description: 'holds every word of the query' },
            vector_score: { type: 'number', description: 'cosine similarity to the query' },
            vector_rank: { type: 'integer' },
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
