// Generated from GET /v2/openapi.json by `npm run console:types`; do not edit.
export interface paths {
  '/v2/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The console session of the request's cookie */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The session */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['session'];
          };
        };
        401: components['responses']['error'];
      };
    };
    put?: never;
    /** Console sign-in: the admin key exchanged for the bw_session cookie (HttpOnly, SameSite=Strict, Path=/, Secure on https), valid CONSOLE_SESSION_TTL_S. A wrong key is 401 and counts toward ADMIN_AUTH_MAX_FAILURES (then 429 with Retry-After). With the cookie, every admin route answers; POST, PUT, PATCH and DELETE then need an Origin header equal to the service origin (403 BW_ERR_ORIGIN_REFUSED otherwise) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['session-request'];
        };
      };
      responses: {
        /** @description Signed in: Set-Cookie bw_session */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        400: components['responses']['error'];
        401: components['responses']['error'];
        429: components['responses']['error'];
      };
    };
    /** Sign out: the session is deleted on the server and the cookie cleared */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Signed out */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        403: components['responses']['error'];
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/callback/telegram/{app_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A Telegram update (X-Telegram-Bot-Api-Secret-Token required) */
    post: {
      parameters: {
        query?: never;
        header: {
          'X-Telegram-Bot-Api-Secret-Token': string;
        };
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['telegram-update'];
        };
      };
      responses: {
        /** @description Accepted, ignored or duplicate */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        503: components['responses']['error'];
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** WhatsApp webhook verification: answers hub.challenge */
    get: {
      parameters: {
        query: {
          'hub.mode': string;
          'hub.verify_token': string;
          'hub.challenge': string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description hub.challenge as text/plain */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        400: components['responses']['error'];
        403: components['responses']['error'];
      };
    };
    put?: never;
    /** A WhatsApp Cloud API webhook; the bot is found by metadata.phone_number_id */
    post: {
      parameters: {
        query?: never;
        header?: {
          'X-Hub-Signature-256'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['whatsapp-callback'];
        };
      };
      responses: {
        /** @description Accepted (counts of new and duplicate items) */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        503: components['responses']['error'];
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/callback/whatsapp/{app_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** WhatsApp webhook verification for one bot */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description hub.challenge */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    /** A WhatsApp webhook for one bot */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['whatsapp-callback'];
        };
      };
      responses: {
        /** @description Accepted */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        503: components['responses']['error'];
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/bots': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List bots */
    get: {
      parameters: {
        query?: {
          limit?: number;
          /** @description next_after of the previous page */
          after?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {items, next_after} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['bot-page'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    /** Create a bot with its first channel */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['create-bot'];
        };
      };
      responses: {
        /** @description The bot, with each channel callback_url, and `warnings` [{path, message}] about its flow (never a refusal: unreachable states, a turn over the HTTP budgets) */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['bot'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/bots/{app_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The bot */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['bot'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Deleted with its channels and conversations */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        '4XX': components['responses']['error'];
      };
    };
    options?: never;
    head?: never;
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['patch-bot'];
        };
      };
      responses: {
        /** @description The bot, and `warnings` [{path, message}] about the flow sent, if any */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['bot'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    trace?: never;
  };
  '/v2/bots/{app_id}/channels': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['channel'];
        };
      };
      responses: {
        /** @description The channel */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['channel-view'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/bots/{app_id}/channels/{channel_id}/webhook': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Register a Telegram channel's webhook (setWebhook with url and secret_token) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
          channel_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {ok, url, registered_at, telegram} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['webhook-result'];
          };
        };
        502: components['responses']['error'];
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/bots/{app_id}/conversations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** @description Newest activity first. `last_message_at` is kept to the minute: it is rewritten only when over a minute old (docs/pipeline.md). */
    get: {
      parameters: {
        query?: {
          limit?: number;
          /** @description next_after of the previous page */
          after?: string;
        };
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {items, next_after} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/conversations/{id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: {
      parameters: {
        query?: {
          limit?: number;
          /** @description next_after of the previous page */
          after?: string;
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {items, next_after} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/collections/{name}/files': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Upload documents (.pdf, .xlsx, .xls, .ods, .csv) to a collection: one multipart file part each, named by its filename (a plain file name: 400 BW_ERR_FILE_NAME otherwise), all or none. A name already stored is 409 BW_ERR_FILE_EXISTS unless replace=true; passing a quota is 413 BW_ERR_UPLOAD_QUOTA */
    post: {
      parameters: {
        query?: {
          /** @description true replaces documents of the same names */
          replace?: 'true' | 'false';
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'multipart/form-data': {
            [key: string]: string;
          };
        };
      };
      responses: {
        /** @description {collection, files: [{name, bytes, sha256}]} */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/collections/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A collection: which bots may read it, uploaded files, what is indexed, the last job */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {collection, owner_app_id, shared, uploaded_files, indexed, last_job} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Set which bots' flows may answer from the collection: its owner bot (owner_app_id, or null) and whether every bot may (shared). A new collection is owned by none and not shared; collections that existed before ownership are shared. A flow asking a collection its bot may not read gets an error starting with BW_ERR_COLLECTION_FORBIDDEN */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['patch-collection'];
        };
      };
      responses: {
        /** @description {collection, owner_app_id, shared} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    trace?: never;
  };
  '/v2/collections/{name}/index': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start (re)indexing: every uploaded document, or the files named; the same work as an indexer topic message */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['index-collection'];
        };
      };
      responses: {
        /** @description {job_id, collection, files, status} */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        503: components['responses']['error'];
        '4XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/index-jobs/{job_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Progress and per-file outcome of an indexing job */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          job_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {job_id, collection, status, progress, files: [{name, status, ...}], ...} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/collections/{name}/search': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Full-text search of a collection */
    get: {
      parameters: {
        query: {
          q: string;
          k?: number;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {collection, language, query, k, hits: [{chunk_id, score, source, text, snippet}]} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The process is up */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {status: "ok"} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Redis and Postgres are reachable */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {status, checks} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
        /** @description {status, checks} */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, never>;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Prometheus metrics */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description text/plain exposition format */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /**
     * Telegram update
     * @description An Update as the Bot API posts it to a webhook. Only the fields botwire relies on are checked; Telegram adds fields over time, so others are allowed.
     */
    'telegram-update': {
      update_id: number;
      message?: components['schemas']['telegram-update']['$defs']['message'];
      edited_message?: components['schemas']['telegram-update']['$defs']['message'];
      callback_query?: {
        id: string;
        from: components['schemas']['telegram-update']['$defs']['user'];
        data?: string;
        message?: components['schemas']['telegram-update']['$defs']['message'];
      };
      $defs: {
        user: {
          id: number;
          is_bot?: boolean;
          first_name?: string;
          last_name?: string;
          username?: string;
          language_code?: string;
        };
        message: {
          message_id: number;
          date: number;
          chat: {
            id: number;
            type: string;
          };
          from?: components['schemas']['telegram-update']['$defs']['user'];
          text?: string;
          caption?: string;
        };
      };
    };
    /**
     * WhatsApp Cloud API webhook
     * @description A business-messaging webhook payload: entries of changes, each with messages and/or statuses for one phone number. Meta adds fields over time, so others are allowed.
     */
    'whatsapp-callback': {
      object: string;
      entry: {
        id: string;
        changes: {
          field: string;
          value: components['schemas']['whatsapp-callback']['$defs']['value'];
        }[];
      }[];
      $defs: {
        value: {
          /** @constant */
          messaging_product: 'whatsapp';
          metadata: {
            display_phone_number?: string;
            phone_number_id: string;
          };
          contacts?: {
            wa_id: string;
            profile?: {
              name?: string;
            };
          }[];
          messages?: components['schemas']['whatsapp-callback']['$defs']['message'][];
          statuses?: {
            id: string;
            status: string;
            timestamp?: string;
            recipient_id?: string;
          }[];
        };
        message: {
          from: string;
          id: string;
          timestamp: string;
          type: string;
          text?: {
            body: string;
          };
          interactive?: {
            /** @enum {unknown} */
            type: 'button_reply' | 'list_reply' | 'nfm_reply';
            button_reply?: components['schemas']['whatsapp-callback']['$defs']['reply'];
            list_reply?: components['schemas']['whatsapp-callback']['$defs']['reply'];
          };
          image?: components['schemas']['whatsapp-callback']['$defs']['media'];
          audio?: components['schemas']['whatsapp-callback']['$defs']['media'];
          document?: components['schemas']['whatsapp-callback']['$defs']['media'];
          location?: {
            latitude: number;
            longitude: number;
          };
        } & (unknown & unknown & unknown & unknown & unknown);
        reply: {
          id: string;
          title?: string;
          description?: string;
        };
        media: {
          id: string;
          mime_type?: string;
          caption?: string;
          filename?: string;
        };
      };
    };
    /** create bot (admin API body) */
    'create-bot': {
      name: string;
      /** @description the bot's conversation flow; a documented default flow when absent */
      flow?: Record<string, never>;
      language?: string;
      active?: boolean;
      channel: components['schemas']['channel'];
    };
    /** update bot (admin API body) */
    'patch-bot': {
      name?: string;
      flow?: Record<string, never>;
      language?: string;
      active?: boolean;
    };
    /**
     * channel (admin API body)
     * @description A chat platform connection: its type and the credentials for it.
     */
    channel: {
      /** @enum {unknown} */
      type: 'telegram' | 'whatsapp';
      details: Record<string, never>;
    } & (unknown & unknown);
    /**
     * POST /v2/collections/<name>/index body
     * @description Starts (re)building a collection. Without files, every document uploaded to the collection is indexed.
     */
    'index-collection': {
      files?: string[];
      chunk_size?: number;
      chunk_overlap?: number;
      /**
       * @description Postgres text search configuration for the collection; when absent it is chosen from the detected language of the first file (else simple)
       * @enum {string}
       */
      language?:
        | 'simple'
        | 'arabic'
        | 'armenian'
        | 'basque'
        | 'catalan'
        | 'danish'
        | 'dutch'
        | 'english'
        | 'finnish'
        | 'french'
        | 'german'
        | 'greek'
        | 'hindi'
        | 'hungarian'
        | 'indonesian'
        | 'irish'
        | 'italian'
        | 'lithuanian'
        | 'nepali'
        | 'norwegian'
        | 'portuguese'
        | 'romanian'
        | 'russian'
        | 'serbian'
        | 'spanish'
        | 'swedish'
        | 'tamil'
        | 'turkish'
        | 'yiddish';
    };
    /**
     * PATCH /v2/collections/<name> body
     * @description Sets which bots may read a collection: its owner bot and whether every bot may. Fields left out stay as they are; a collection not yet indexed is created with them.
     */
    'patch-collection': {
      /** @description the bot that may read the collection (its app_id), or null for none */
      owner_app_id?: string | null;
      /** @description every bot may read the collection */
      shared?: boolean;
    };
    /** console sign-in (POST /v2/session body) */
    'session-request': {
      key: string;
    };
    'channel-view': {
      /** Format: uuid */
      id: string;
      /** @description telegram, whatsapp or web */
      type: string;
      callback_url: string;
      /** Format: date-time */
      webhook_registered_at: string | null;
      /** Format: date-time */
      created_at: string;
      /**
       * @description present when the stored credentials do not open with the configured keys
       * @constant
       */
      credentials?: 'unreadable';
      phone_number_id?: string;
      has_app_secret?: boolean;
      has_verify_token?: boolean;
    };
    bot: {
      /** Format: uuid */
      app_id: string;
      name: string;
      language?: string | null;
      active: boolean;
      flow: Record<string, never>;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
      channels: components['schemas']['channel-view'][];
      /** @description after a create or update: warnings about the flow, never a refusal */
      warnings?: {
        path: string;
        message: string;
      }[];
    };
    'bot-page': {
      items: components['schemas']['bot'][];
      next_after: string | null;
    };
    'webhook-result': {
      /** @constant */
      ok: true;
      url: string;
      /** Format: date-time */
      registered_at: string;
      telegram?: {
        ok?: boolean;
        description?: string;
      };
    };
    session: {
      /** @description "console" for a console session */
      actor: string;
      /** Format: date-time */
      expires_at: string;
    };
  };
  responses: {
    /** @description An error with a stable code */
    error: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': {
          error?: {
            /** @enum {unknown} */
            code:
              | 'BW_ERR_CONFIG'
              | 'BW_ERR_INTERNAL'
              | 'BW_ERR_UNAVAILABLE'
              | 'BW_ERR_OVERLOADED'
              | 'BW_ERR_BOT_OVERLOADED'
              | 'BW_ERR_UNKNOWN_TOPIC'
              | 'BW_ERR_MESSAGE_MALFORMED'
              | 'BW_ERR_MESSAGE_INVALID'
              | 'BW_ERR_MAX_DELIVERIES'
              | 'BW_ERR_HANDLER'
              | 'BW_ERR_NOT_FOUND'
              | 'BW_ERR_COLLECTION_FORBIDDEN'
              | 'BW_ERR_METHOD_NOT_ALLOWED'
              | 'BW_ERR_UNSUPPORTED_MEDIA_TYPE'
              | 'BW_ERR_MALFORMED_JSON'
              | 'BW_ERR_SCHEMA'
              | 'BW_ERR_PAYLOAD_TOO_LARGE'
              | 'BW_ERR_UNAUTHORIZED'
              | 'BW_ERR_BAD_SECRET'
              | 'BW_ERR_BAD_SIGNATURE'
              | 'BW_ERR_VERIFY_TOKEN'
              | 'BW_ERR_UNKNOWN_BOT'
              | 'BW_ERR_BOT_INACTIVE'
              | 'BW_ERR_UNKNOWN_CHANNEL'
              | 'BW_ERR_CONFLICT'
              | 'BW_ERR_UNSUPPORTED'
              | 'BW_ERR_UPSTREAM'
              | 'BW_ERR_DOCUMENT_UNREADABLE'
              | 'BW_ERR_DOCUMENT_TOO_LARGE'
              | 'BW_ERR_DOCUMENT_UNSUPPORTED'
              | 'BW_ERR_FLOW_INVALID'
              | 'BW_ERR_FLOW_LOOP'
              | 'BW_ERR_FLOW_STUCK'
              | 'BW_ERR_FLOW_HTTP_REFUSED'
              | 'BW_ERR_FLOW_BUDGET'
              | 'BW_ERR_FLOW_STATE_TOO_LARGE'
              | 'BW_ERR_STATE_CONFLICT'
              | 'BW_ERR_CREDENTIALS_KEY'
              | 'BW_ERR_BODY_TIMEOUT'
              | 'BW_ERR_AUTH_RATE_LIMITED'
              | 'BW_ERR_FILE_NAME'
              | 'BW_ERR_FILE_EXISTS'
              | 'BW_ERR_UPLOAD_QUOTA'
              | 'BW_ERR_ORIGIN_REFUSED'
              | 'BW_ERR_CONSOLE_NOT_BUILT';
            message: string;
            details?: Record<string, never>;
          };
        };
      };
    };
  };
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
