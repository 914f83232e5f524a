/** Response schemas of the operations, conversation and collection list routes (openapi-ops.ts). */

export const nullable = (schema: Record<string, unknown>) => ({
  anyOf: [schema, { type: 'null' }],
});
export const time = { type: 'string', format: 'date-time' };

/** Where an indexing job stands (`index_jobs.status`). */
export const jobStatus = {
  enum: ['queued', 'running', 'succeeded', 'partial', 'failed', 'superseded'],
};

export const deadLetter = {
  type: 'object',
  required: ['id', 'code', 'reason', 'data', 'failed_at'],
  properties: {
    id: {
      type: 'string',
      pattern: '^p[0-9]{1,3}-[0-9]{1,20}-[0-9]{1,20}$',
      description:
        "p<n>-<ms>-<seq>: its partition and its id in that partition's dead-letter stream",
    },
    code: { type: 'string', description: 'BW_ERR_* code of the failure' },
    reason: { type: 'string' },
    data: { description: 'the message as JSON; its raw text when it was not JSON' },
    failed_at: nullable(time),
    topic: { type: 'string' },
    source_id: { type: 'string', description: 'the entry id it had in its partition' },
    stream: { type: 'string', description: 'the partition stream it was read from' },
    consumer: { type: 'string', description: 'the process that gave up on it' },
    deliveries: { type: 'integer' },
  },
};

export const conversationItem = {
  type: 'object',
  required: ['id', 'channel_type', 'chat_id', 'state', 'last_message_preview', 'last_message_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    channel_id: { type: 'string', format: 'uuid' },
    channel_type: { type: 'string' },
    chat_id: { type: 'string' },
    language: nullable({ type: 'string' }),
    user_pid: { type: 'string' },
    first_name: nullable({ type: 'string' }),
    last_name: nullable({ type: 'string' }),
    state: { ...nullable({ type: 'string' }), description: 'the flow state it waits in' },
    last_message_preview: {
      ...nullable({ type: 'string' }),
      description: 'the first 120 characters of the last message (text, caption or choice)',
    },
    last_message_type: nullable({ type: 'string' }),
    created_at: time,
    last_message_at: { ...time, description: 'kept to the minute' },
  },
};

export const conversation = {
  type: 'object',
  required: [
    'id',
    'app_id',
    'channel_type',
    'chat_id',
    'state',
    'variables',
    'created_at',
    'last_message_at',
  ],
  properties: {
    ...conversationItem.properties,
    app_id: { type: 'string' },
    variables: {
      type: 'object',
      description: "the flow's variables (may hold what users told the bot)",
    },
    ended: { type: 'boolean', description: 'the flow reached an end' },
    state_updated_at: nullable(time),
    opted_out_at: {
      ...nullable(time),
      description:
        'when the user opted out of broadcasts (a stop word, or a Telegram block); null if not (DELETE …/opt-out clears it)',
    },
  },
};

export const jobSummary = {
  type: 'object',
  required: ['job_id', 'collection', 'status', 'files_total', 'files_done', 'files_failed'],
  properties: {
    job_id: { type: 'string' },
    collection: { type: 'string' },
    status: jobStatus,
    files_total: { type: 'integer' },
    files_done: { type: 'integer' },
    files_failed: { type: 'integer' },
    chunks_done: { type: 'integer' },
    error: nullable({ type: 'string' }),
    attempts: { type: 'integer' },
    created_at: time,
    started_at: nullable(time),
    finished_at: nullable(time),
  },
};

export const collectionItem = {
  type: 'object',
  required: ['name', 'owner_app_id', 'shared', 'files', 'chunks', 'updated_at', 'last_job'],
  properties: {
    name: { type: 'string' },
    owner_app_id: nullable({ type: 'string' }),
    shared: { type: 'boolean', description: 'every bot may read it' },
    language: nullable({ type: 'string' }),
    files: { type: 'integer', description: 'files indexed' },
    chunks: { type: 'integer', description: 'chunks searchable' },
    uploaded_files: { type: 'integer', description: 'documents uploaded to STORAGE_DIR' },
    indexed_at: nullable(time),
    updated_at: nullable(time),
    last_job: nullable({
      type: 'object',
      required: ['job_id', 'status'],
      properties: { job_id: { type: 'string' }, status: jobStatus },
    }),
  },
};
