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
    /** Console sign-in: an account's email and password, or the admin key, exchanged for the bw_session cookie (HttpOnly, SameSite=Strict, Path=/, Secure on https), valid CONSOLE_SESSION_TTL_S. A wrong key or password is 401 and counts toward ADMIN_AUTH_MAX_FAILURES for the address and, for a password, ACCOUNT_AUTH_MAX_FAILURES for the email (then 429 with Retry-After). With the cookie, the admin routes of the account's role answer; POST, PUT, PATCH and DELETE then need an Origin header equal to the service origin (403 BW_ERR_ORIGIN_REFUSED otherwise) */
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
  '/v2/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The audit log: every change made through the admin API, newest first */
    get: {
      parameters: {
        query?: {
          /** @description only changes by this actor (exact) */
          actor?: string;
          /** @description only this action (exact), e.g. bot.update */
          action?: string;
          app_id?: string;
          /** @description changes at or after this time */
          since?: string;
          /** @description changes before this time */
          until?: string;
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
        /** @description A page of audit rows */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['audit-page'];
          };
        };
        default: components['responses']['error'];
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
  '/v2/accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every account (owners) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The accounts */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['account-list'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    /** Make an account with its first password (owners); 409 when the email is taken */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['create-account'];
        };
      };
      responses: {
        /** @description The account */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['account'];
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
  '/v2/accounts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One account (owners) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the account's id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The account */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['account'];
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
    /** Change an account (owners): name, role, password, assigned bots, disabled. Disabling (or a new password) ends its sessions at once; its tokens stop with the disabling */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the account's id */
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['patch-account'];
        };
      };
      responses: {
        /** @description The account */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['account'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    trace?: never;
  };
  '/v2/accounts/{id}/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account's live console sessions (owners) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the account's id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The sessions */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['session-list'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    post?: never;
    /** End every console session of an account (owners); answers {ended: <count>} */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the account's id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description How many ended */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              ended: number;
            };
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/invites': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Open invites: not used, not ended (owners) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The invites */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['invite-list'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    /** Make an invite (owners): the answer holds the one-time link (url, token) the console shows; valid INVITE_TTL_S */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['create-invite'];
        };
      };
      responses: {
        /** @description The invite with its link */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['invite'];
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
  '/v2/invites/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Withdraw an open invite (owners) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the invite's id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Withdrawn */
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
    patch?: never;
    trace?: never;
  };
  '/v2/invites/{token}/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What an invite link offers (no sign-in); an unknown, used or ended link is 410 and counts toward ADMIN_AUTH_MAX_FAILURES */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the token of the invite link */
          token: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The invite */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['invite-public'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    /** Use an invite link once (no sign-in): makes the account with the invited role and bots; then sign in with POST /v2/session */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the token of the invite link */
          token: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['accept-invite'];
        };
      };
      responses: {
        /** @description The new account */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['account'];
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
  '/v2/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Who the caller is: actor, role, account and assigned bots */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The caller */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['me'];
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
  '/v2/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's live console sessions (none for the admin key) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The sessions */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['session-list'];
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
  '/v2/sessions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** End one of the caller's console sessions */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the session's id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Ended */
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
    patch?: never;
    trace?: never;
  };
  '/v2/tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's personal API tokens, revoked ones included (never the tokens) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The tokens */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['token-list'];
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    /** Make a personal API token (Bearer bwp_...), of the caller's role or less: the answer is the only one holding it */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['create-token'];
        };
      };
      responses: {
        /** @description The token */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['token'];
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
  '/v2/tokens/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke a personal API token of the caller; its next use is 401 */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description the token's id */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Revoked */
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
    patch?: never;
    trace?: never;
  };
  '/v2/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Live events for the console (Server-Sent Events)
     * @description Each event: `id:` a stream id (send it back as Last-Event-ID to resume), `event:` its type (message, conversation, index-job, bot, dead-letter, handoff, reset), `data:` one JSON object (components event-<type>). A comment line every 15 s keeps the connection open. Best effort and bounded: see docs/events.md.
     */
    get: {
      parameters: {
        query?: {
          /** @description Resume after this event, for a first connection. */
          last_event_id?: string;
          /** @description Only events of these bots (repeatable, or comma-separated); leaves out events of no bot (index-job, dead-letter). */
          app_id?: string[];
          /** @description Only these event types, comma-separated (reset is always sent). */
          types?: ('message' | 'conversation' | 'index-job' | 'bot' | 'dead-letter' | 'handoff')[];
        };
        header?: {
          /** @description Resume after this event (EventSource sends it when it reconnects); wins over last_event_id. Without either, the stream starts from now. */
          'Last-Event-ID'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description An endless text/event-stream; the events carry the payloads below. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
        400: components['responses']['error'];
        401: components['responses']['error'];
        503: components['responses']['error'];
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
  '/v2/flows/validate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Validate a flow with the server's validator; an invalid flow is an answer (200, ok false), never a 4xx. 400 only when the body is not JSON */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': unknown;
        };
      };
      responses: {
        /** @description The verdict */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              ok: boolean;
              problems: {
                /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                path: string;
                message: string;
              }[];
              warnings: {
                /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                path: string;
                message: string;
              }[];
            };
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
  '/v2/bots/{app_id}/flow': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The bot's current (published) flow version and its draft, if any */
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
        /** @description Published and draft */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              published: {
                version: number;
                /** @description who published it: admin-key, console, ... */
                author: string;
                /** Format: date-time */
                created_at: string;
                note: string | null;
                /** @description a flow (docs/flows.md) */
                flow: Record<string, unknown>;
              };
              draft: {
                /** @description a flow (docs/flows.md) */
                flow: Record<string, unknown>;
                author: string;
                /** @description bumped on every save */
                revision: number;
                /** Format: date-time */
                updated_at: string;
                problems: {
                  /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                  path: string;
                  message: string;
                }[];
                warnings: {
                  /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                  path: string;
                  message: string;
                }[];
              } | null;
            };
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
  '/v2/bots/{app_id}/flow/draft': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Save the bot's draft; saved even when invalid, its problems and warnings returned */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['flow-draft'];
        };
      };
      responses: {
        /** @description The draft */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description a flow (docs/flows.md) */
              flow: Record<string, unknown>;
              author: string;
              /** @description bumped on every save */
              revision: number;
              /** Format: date-time */
              updated_at: string;
              problems: {
                /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                path: string;
                message: string;
              }[];
              warnings: {
                /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                path: string;
                message: string;
              }[];
            };
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    post?: never;
    /** Discard the bot's draft (204 also when there was none) */
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
        /** @description No draft now */
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
    patch?: never;
    trace?: never;
  };
  '/v2/bots/{app_id}/flow/publish': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Publish the draft as the next version, which becomes current, once the bot's conversation tests pass on it; 422 BW_ERR_FLOW_INVALID (details.problems) when it is invalid, 409 BW_ERR_NO_DRAFT without one, 409 BW_ERR_TESTS_FAILED (details.run, details.may_override) when a test fails, 503 BW_ERR_TESTS_UNAVAILABLE when they cannot be run, 409 BW_ERR_DRAFT_CHANGED when the draft was saved while they ran; owners may publish anyway with override_tests */
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
          'application/json': components['schemas']['publish-flow'];
        };
      };
      responses: {
        /** @description The new current version */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              version: number;
              /** @description who published it: admin-key, console, ... */
              author: string;
              /** Format: date-time */
              created_at: string;
              note: string | null;
              /** @description a flow (docs/flows.md) */
              flow: Record<string, unknown>;
              /** @description the version new turns use */
              current: boolean;
              warnings: {
                /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                path: string;
                message: string;
              }[];
              /** @description the conversation tests' run on the draft; null when the bot has none */
              tests: {
                passed: number;
                failed: number;
                duration_ms: number;
                tests: {
                  name: string;
                  passed: boolean;
                  duration_ms: number;
                  failures: {
                    step: number;
                    expectation?: number;
                    /** @description steps[1].expect[0] text_equals "…" */
                    where: string;
                    message: string;
                  }[];
                  /** @description what each step did: the bot's replies, the state after it */
                  steps: Record<string, unknown>[];
                }[];
              } | null;
            };
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
  '/v2/bots/{app_id}/flow/versions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Published versions, newest first, with the states each changed */
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
        /** @description A page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                version: number;
                /** @description who published it: admin-key, console, ... */
                author: string;
                /** Format: date-time */
                created_at: string;
                note: string | null;
                current: boolean;
                /** @description state names compared with the previous version */
                changes: {
                  added: string[];
                  removed: string[];
                  changed: string[];
                };
              }[];
              next_after: string | null;
            };
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
  '/v2/bots/{app_id}/flow/versions/{version}': {
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
          version: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The version */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              version: number;
              /** @description who published it: admin-key, console, ... */
              author: string;
              /** Format: date-time */
              created_at: string;
              note: string | null;
              /** @description a flow (docs/flows.md) */
              flow: Record<string, unknown>;
              /** @description the version new turns use */
              current: boolean;
            };
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
  '/v2/bots/{app_id}/flow/versions/{version}/publish': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Roll back (or forward): this version becomes current, no new version is written; 422 BW_ERR_FLOW_INVALID when it no longer validates */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
          version: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The version, now current */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              version: number;
              /** @description who published it: admin-key, console, ... */
              author: string;
              /** Format: date-time */
              created_at: string;
              note: string | null;
              /** @description a flow (docs/flows.md) */
              flow: Record<string, unknown>;
              /** @description the version new turns use */
              current: boolean;
              warnings: {
                /** @description JSON Pointer into the flow, e.g. /states/ask/next */
                path: string;
                message: string;
              }[];
            };
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
  '/v2/bots/{app_id}/flow/llm-usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Tokens the bot's llm steps used today (UTC) and its daily budget (the lower of FLOW_LLM_DAILY_TOKENS and the current flow's llm.daily_tokens); docs/flows.md, "The llm step" */
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
        /** @description Today's use */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description YYYY-MM-DD, UTC */
              day: string;
              /** @description reserved and used so far */
              tokens: number;
              daily_budget: number;
            };
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
  '/v2/bots/{app_id}/flow/impact': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Conversations now waiting in a state the candidate flow (a version, or the draft) does not have: they would start over at start on their next turn */
    get: {
      parameters: {
        query: {
          /** @description a version number, or draft */
          version: string;
        };
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Counts by removed state */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              removed_states: {
                state: string;
                conversations: number;
              }[];
              /** @description the total */
              conversations: number;
            };
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
  '/v2/bots/{app_id}/test-chats': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start a test chat running the draft (the default), the current version or a version, through the whole pipeline on the bot's console channel, whatever its channels; 422 BW_ERR_FLOW_INVALID for a flow that could not be published */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['test-chat'];
        };
      };
      responses: {
        /** @description The test chat */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              chat_id: string;
              source:
                | {
                    /** @description the draft's revision */
                    draft: number;
                  }
                | {
                    version: number;
                  };
              created_by: string;
              /** Format: date-time */
              created_at: string;
              messages_url: string;
              events_url: string;
            };
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
  '/v2/bots/{app_id}/test-chats/{chat_id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** An operator's message in a test chat, once per client_message_id */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
          chat_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['test-chat-message'];
        };
      };
      responses: {
        /** @description Accepted (duplicate: this client_message_id was accepted before) */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @constant */
              accepted: true;
              duplicate: boolean;
            };
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
  '/v2/bots/{app_id}/test-chats/{chat_id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The test chat's messages as Server-Sent Events, as a web visitor's stream (event: message, data: web-event); resumable with Last-Event-ID or last_event_id */
    get: {
      parameters: {
        query?: {
          /** @description as Last-Event-ID, for clients that cannot set it */
          last_event_id?: string;
        };
        header?: {
          /** @description read strictly after this event id */
          'Last-Event-ID'?: string;
        };
        path: {
          app_id: string;
          chat_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description text/event-stream; each event's data is a web-event */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': components['schemas']['web-event'];
          };
        };
        503: components['responses']['error'];
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
  '/v2/bots/{app_id}/analytics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The bot's figures over a range of days (UTC), from rollups kept as turns happen: totals, rates, by day, channel type, language and flow version, per state with its drop-off, and the service users got (response times, handoff outcomes, send failures by code); test chats are never counted. format=csv gives one row per day, channel type, language and version (rows=states: per state) */
    get: {
      parameters: {
        query?: {
          /** @description first day (UTC, YYYY-MM-DD); default six days before `to` */
          from?: string;
          /** @description last day (UTC, YYYY-MM-DD), at most 366 days after `from`; default today */
          to?: string;
          /** @description conversations on channels of this type only */
          channel_type?: 'telegram' | 'whatsapp' | 'web';
          /** @description conversations in this language only; empty: those whose language is not known */
          language?: string;
          /** @description turns that ran this published flow version only */
          version?: string;
          /** @description json (the default), or csv: one row per day, channel type, language and version (or per state with rows=states) */
          format?: 'json' | 'csv';
          /** @description what the CSV's rows are: days (the default), states, or service (per day and channel type: response times, handoff ends, refused replies; no language or version filter) */
          rows?: 'days' | 'states' | 'service';
        };
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The figures */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              app_id: string;
              /** Format: date */
              from: string;
              /** Format: date */
              to: string;
              filters: Record<string, unknown>;
              totals: {
                conversations: number;
                new_users: number;
                active_users: number;
                messages_in: number;
                messages_out: number;
                completed: number;
                reasks: number;
                fallbacks: number;
                handoffs: number;
                unanswered: number;
              } & {
                users: number | null;
                returning_users: number | null;
              };
              rates: {
                completion: number | null;
                did_not_understand: number | null;
                handoff: number | null;
              };
              by_day: ({
                conversations: number;
                new_users: number;
                active_users: number;
                messages_in: number;
                messages_out: number;
                completed: number;
                reasks: number;
                fallbacks: number;
                handoffs: number;
                unanswered: number;
              } & {
                /** Format: date */
                day: string;
              })[];
              by_channel: ({
                conversations: number;
                new_users: number;
                active_users: number;
                messages_in: number;
                messages_out: number;
                completed: number;
                reasks: number;
                fallbacks: number;
                handoffs: number;
                unanswered: number;
              } & {
                channel_type: string;
              })[];
              by_language: ({
                conversations: number;
                new_users: number;
                active_users: number;
                messages_in: number;
                messages_out: number;
                completed: number;
                reasks: number;
                fallbacks: number;
                handoffs: number;
                unanswered: number;
              } & {
                language: string;
              })[];
              by_version: ({
                conversations: number;
                new_users: number;
                active_users: number;
                messages_in: number;
                messages_out: number;
                completed: number;
                reasks: number;
                fallbacks: number;
                handoffs: number;
                unanswered: number;
              } & {
                flow_version: number;
              })[];
              states: {
                state: string;
                entered: number;
                left_forward: number;
                ended: number;
                handoffs: number;
                reasks: number;
                fallbacks: number;
                abandoned: number;
              }[];
              /** @description The service users got; null with a language or version filter */
              service: {
                /** @description From a user's message to the platform accepting the bot's first reply to it; milliseconds, each within 5 % (log-scale buckets), null when count is 0 */
                bot_response_ms: {
                  count: number;
                  median: number | null;
                  p90: number | null;
                };
                /** @description From a handoff's start to an agent's first reply; milliseconds, each within 5 % (log-scale buckets), null when count is 0 */
                agent_first_reply_ms: {
                  count: number;
                  median: number | null;
                  p90: number | null;
                };
                handoffs_ended: {
                  closed: number;
                  returned: number;
                  timed_out: number;
                  resolved_by_agent: number | null;
                };
                /** @description Replies a platform refused, by the platform's code, most first */
                send_failures: {
                  code: string;
                  count: number;
                }[];
              } | null;
            };
            'text/csv': string;
          };
        };
        400: components['responses']['error'];
        401: components['responses']['error'];
        403: components['responses']['error'];
        404: components['responses']['error'];
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
  '/v2/bots/{app_id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** The bot writes first: one message to a user who has a conversation with it, or on WhatsApp a template to any number (by channel_id and chat_id; its conversation is opened). The same idempotency_key sends once and answers the first result (duplicate: true); another request under it is 409 BW_ERR_IDEMPOTENCY_MISMATCH. On WhatsApp, a free-form message more than 24 hours after the user's last message is 422 BW_ERR_WINDOW_CLOSED; an approved template goes at any time, its parameters checked first (422 BW_ERR_TEMPLATE), unless it starts a conversation the number's daily messaging limit has no room for (429 BW_ERR_MESSAGING_LIMIT). Accepted for sending (202): the transcript row says sent or failed */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['send-message'];
        };
      };
      responses: {
        /** @description Accepted: published to channel, in the conversation’s order */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description the transcript rows of the message carry it */
              turn_id: string;
              /** Format: uuid */
              conversation_id: string;
              /** @description the key was used before: nothing more is sent */
              duplicate: boolean;
            };
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
  '/v2/bots/{app_id}/templates/sync': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Reads the WhatsApp message templates of each WhatsApp channel's Business Account (its business_account_id) and keeps them as they are there; a channel without one is named, not synced. 502 BW_ERR_UPSTREAM when Meta cannot be read */
    post: {
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
        /** @description What each WhatsApp channel got */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              channels: {
                /** Format: uuid */
                channel_id: string;
                synced: boolean;
                templates?: number;
                reason?: string;
              }[];
            };
          };
        };
        '4XX': components['responses']['error'];
        '5XX': components['responses']['error'];
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2/bots/{app_id}/templates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The bot's WhatsApp templates as last synced, with the parameters each takes */
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
        /** @description The templates */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                /** Format: uuid */
                channel_id: string;
                name: string;
                language: string;
                /** @description MARKETING, UTILITY or AUTHENTICATION */
                category: string;
                /** @description APPROVED is the only one sent */
                status: string;
                /** @description Meta's, as synced */
                components: Record<string, unknown>[];
                /** @description what a send gives it: texts for its header and body, a link for its media header, an address end for each URL button ending in a placeholder */
                parameters: {
                  header: number;
                  body: number;
                  /**
                   * @description the media its header shows (parameters.header_media.link); null for none
                   * @enum {string|null}
                   */
                  header_media: 'image' | 'video' | 'document' | null;
                  /** @description texts of parameters.buttons */
                  buttons: number;
                };
                /** Format: date-time */
                synced_at?: string;
              }[];
            };
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
  '/v2/bots/{app_id}/broadcasts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The bot's broadcasts, newest first, with their counts */
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Broadcasts */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['broadcast'][];
            };
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    put?: never;
    /** Makes a broadcast: the audience is fixed into recipients at once (each skipped one with its reason) and the broadcast starts at start_at, run by channel at the pace replies leave. With dry_run nothing is made and the answer counts who would get it. The message is checked as for one message (422 BW_ERR_TEMPLATE); a WhatsApp free-form message skips users whose window closed */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['create-broadcast'];
        };
      };
      responses: {
        /** @description A dry run: what the broadcast would do */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @constant */
              dry_run: true;
              total: number;
              will_send: number;
              skipped: {
                [key: string]: number;
              };
              /** @description a WhatsApp template broadcast: the number's messaging limit (users a day it may start conversations with), those it started in the 24 hours before the start, the recipients this one starts conversations with (their window closed), and the days it takes: what the limit has no room for today goes on over the following days */
              messaging_limit?: {
                limit: number | 'unlimited';
                used: number;
                starting: number;
                days: {
                  /** Format: date-time */
                  from: string;
                  users: number;
                }[];
              };
            };
          };
        };
        /** @description Made, and started for its start time */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['broadcast'];
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
  '/v2/broadcasts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A broadcast and its progress */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The broadcast */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['broadcast'];
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
  '/v2/broadcasts/{id}/pause': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Pauses a scheduled or running broadcast: calls waiting for their pace are withdrawn; calls under way end. 409 BW_ERR_BROADCAST_STATE from any other status */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The broadcast after the move */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['broadcast'];
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
  '/v2/broadcasts/{id}/resume': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Starts a paused (or scheduled) broadcast again where it stopped, from its start time */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The broadcast after the move */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['broadcast'];
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
  '/v2/broadcasts/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancels a broadcast: every recipient not yet sent is skipped (cancelled); calls under way end */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The broadcast after the move */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['broadcast'];
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
  '/v2/broadcasts/{id}/recipients': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every recipient's outcome as CSV: seq, chat_id, conversation_id, state, reason, platform_message_id, delivery (delivered or read, WhatsApp), updated_at */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description CSV */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/csv': string;
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
  '/v2/conversations/{id}/opt-out': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Clears the user's opt-out of broadcasts (set by a stop word, or by a Telegram user blocking the bot) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Cleared */
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
    patch?: never;
    trace?: never;
  };
  '/v2/bots/{app_id}/tests': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The bot's conversation tests, by name */
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
        /** @description The tests */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                name: string;
                test: components['schemas']['conversation-test'];
                updated_by: string;
                /** Format: date-time */
                updated_at: string;
              }[];
            };
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
  '/v2/bots/{app_id}/tests/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Write a conversation test (201 new, 200 replaced); the path names it */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['conversation-test'];
        };
      };
      responses: {
        /** @description Replaced */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              name: string;
              test: components['schemas']['conversation-test'];
            };
          };
        };
        /** @description Made */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              name: string;
              test: components['schemas']['conversation-test'];
            };
          };
        };
        '4XX': components['responses']['error'];
      };
    };
    post?: never;
    /** Delete a conversation test */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Deleted */
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
    patch?: never;
    trace?: never;
  };
  '/v2/bots/{app_id}/tests/from-chat': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Save a test chat's conversation as a test: each input a step, each reply its text and options expected, the last step its state */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['test-from-chat'];
        };
      };
      responses: {
        /** @description Replaced */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              name: string;
              test: components['schemas']['conversation-test'];
            };
          };
        };
        /** @description Made */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              name: string;
              test: components['schemas']['conversation-test'];
            };
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
  '/v2/bots/{app_id}/tests/run': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run the saved tests (or `names`) against the draft (the default), the current version or a version, on the flow engine with their stand-ins; `?format=junit` answers JUnit XML */
    post: {
      parameters: {
        query?: {
          format?: 'json' | 'junit';
        };
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['tests-run'];
        };
      };
      responses: {
        /** @description The results (a run with a failing test is still a 200) */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              app_id: string;
              /** @description {"draft": revision} or {"version": n} */
              flow: Record<string, unknown>;
              passed: number;
              failed: number;
              duration_ms: number;
              tests: {
                name: string;
                passed: boolean;
                duration_ms: number;
                failures: {
                  step: number;
                  expectation?: number;
                  /** @description steps[1].expect[0] text_equals "…" */
                  where: string;
                  message: string;
                }[];
                /** @description what each step did: the bot's replies, the state after it */
                steps: Record<string, unknown>[];
              }[];
            };
            'application/xml': string;
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
  '/v2/handoffs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Handoffs, oldest first (the one waiting longest on top); open ones (waiting, claimed) unless status says otherwise. Agents see their assigned bots only. */
    get: {
      parameters: {
        query?: {
          limit?: number;
          /** @description next_after of the previous page */
          after?: string;
          app_id?: string;
          status?: 'open' | 'waiting' | 'claimed' | 'returned' | 'closed' | 'fallback';
          queue?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A page of handoffs */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['handoff'][];
              next_after: string | null;
            };
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
  '/v2/handoffs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One handoff, with the flow state and variables and the transcript since it began */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The handoff */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['handoff-detail'];
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
  '/v2/handoffs/{id}/claim': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Claim a waiting handoff (one agent at a time): 409 BW_ERR_HANDOFF_CLAIMED when another agent holds it; the holder claiming again gets 200 */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Claimed by the caller */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['handoff'];
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
  '/v2/handoffs/{id}/release': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Give a claimed handoff back to its queue (the holder only) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Waiting again */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['handoff'];
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
  '/v2/handoffs/{id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send the user a message (the holder only), through channel like the bot's; the same client_message_id again sends nothing more */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['handoff-message'];
        };
      };
      responses: {
        /** @description Published to channel */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description agent:<handoff id>:<client_message_id> */
              turn_id: string;
              duplicate: boolean;
            };
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
  '/v2/handoffs/{id}/typing': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Show the user the agent is typing (the holder only): Telegram sendChatAction, a typing event on the web channel, nothing on WhatsApp */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Asked of channel (or nothing, shown false) */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              shown: boolean;
            };
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
  '/v2/handoffs/{id}/notes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Write an internal note into the transcript (status note; never sent) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            text: string;
          };
        };
      };
      responses: {
        /** @description The transcript row */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id: string;
              /** @enum {unknown} */
              direction: 'in' | 'out';
              turn_id?: string | null;
              message_type: string;
              body: Record<string, unknown>;
              /** @description received, sent, failed, ..., or note */
              status: string | null;
              /** @description why the platform refused an outbound message */
              error?: string | null;
              /** @description null: the bot's; else the agent's actor */
              sent_by: string | null;
              /** Format: date-time */
              created_at: string;
            };
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
  '/v2/handoffs/{id}/return': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Hand the conversation back to the bot at a state of its published flow (the holder, or anyone while it waits): 400 BW_ERR_UNKNOWN_STATE for a state the flow lacks. flow ends the handoff and runs the state */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            state: string;
          };
        };
      };
      responses: {
        /** @description Asked of flow */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              handoff_id: string;
              /** @enum {unknown} */
              action: 'return' | 'close';
              state?: string;
              /** @description asked already: nothing more was published */
              duplicate: boolean;
            };
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
  '/v2/handoffs/{id}/close': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Close the handoff and the conversation (the holder, or anyone while it waits); the user's next message starts the flow over */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Asked of flow */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              handoff_id: string;
              /** @enum {unknown} */
              action: 'return' | 'close';
              state?: string;
              /** @description asked already: nothing more was published */
              duplicate: boolean;
            };
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
  '/v2/web/{app_id}/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start a web visitor's session, or renew it with the current token */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Must be one of the channel's allowed_origins or the service's own origin when present (403 BW_ERR_ORIGIN_REFUSED otherwise) */
          Origin?: string;
        };
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            token?: string;
          };
        };
      };
      responses: {
        /** @description The visitor and a token for them */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              visitor_id: string;
              token: string;
              /** Format: date-time */
              expires_at: string;
              /** Format: uuid */
              conversation_id: string | null;
            };
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
  '/v2/callback/web/{app_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A web visitor's message, once per client_message_id */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Must be one of the channel's allowed_origins or the service's own origin when present (403 BW_ERR_ORIGIN_REFUSED otherwise) */
          Origin?: string;
        };
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            client_message_id: string;
            text?: string;
            button_id?: string;
            list_row_id?: string;
          } & (unknown | unknown | unknown);
        };
      };
      responses: {
        /** @description Accepted (duplicate: this client_message_id was accepted before) */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @constant */
              accepted: true;
              duplicate: boolean;
            };
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
  '/v2/web/{app_id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The visitor's messages as Server-Sent Events (event: message, id: <stream id>, data: web-event; event: typing while an agent types during a handoff, data: {event, conversation_id, at}); resumable */
    get: {
      parameters: {
        query?: {
          /** @description the visitor token (EventSource cannot send headers) */
          token?: string;
          /** @description as Last-Event-ID, for clients that cannot set it */
          last_event_id?: string;
        };
        header?: {
          /** @description Must be one of the channel's allowed_origins or the service's own origin when present (403 BW_ERR_ORIGIN_REFUSED otherwise) */
          Origin?: string;
          /** @description read strictly after this event id */
          'Last-Event-ID'?: string;
        };
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description text/event-stream; each event's data is a web-event; ": keep-alive" comments every 15 s */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': components['schemas']['web-event'];
          };
        };
        503: components['responses']['error'];
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
  '/v2/web/widget.js': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The embeddable chat widget (<script src=… data-app-id=… async>) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description JavaScript, cached for an hour */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/javascript': string;
          };
        };
        /** @description Not modified (If-None-Match) */
        304: {
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
            'application/json': Record<string, unknown>;
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
            'application/json': Record<string, unknown>;
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
            'application/json': Record<string, unknown>;
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
  '/v2/bots/{app_id}/channels/{channel_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Remove a channel, and with it its conversations and their transcripts; the bot and its other channels stay */
    delete: {
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
        /** @description Removed */
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
    /** Replace a channel's details (a web channel's allowed origins, a new Telegram token: register its webhook again, WhatsApp credentials); what botwire made for it stays */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
          channel_id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['patch-channel'];
        };
      };
      responses: {
        /** @description The channel */
        200: {
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
    trace?: never;
  };
  '/v2/bots/{app_id}/channels/{channel_id}/messaging-limit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set a WhatsApp channel's messaging limit (Meta's tier), its other details and access token kept; 404 BW_ERR_UNKNOWN_CHANNEL for a channel of another platform */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          app_id: string;
          channel_id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['messaging-limit'];
        };
      };
      responses: {
        /** @description The channel */
        200: {
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
    post?: never;
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
            'application/json': components['schemas']['message-page'];
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
            'application/json': components['schemas']['upload-result'];
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
            'application/json': components['schemas']['collection'];
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
    /** Set which bots' flows may answer from the collection: its owner bot (owner_app_id, or null) and whether every bot may (shared). A new collection is owned by none and not shared; collections that existed before ownership are shared. A flow asking a collection its bot may not read gets an error starting with BW_ERR_COLLECTION_FORBIDDEN. Also its embedding model (local, api, none; a change re-indexes an indexed collection, reindex_job_id) and relevance threshold (min_similarity) */
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
        /** @description {collection, owner_app_id, shared, embedding_model, min_similarity, reindex_job_id?} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['collection-ownership'];
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
            'application/json': components['schemas']['index-started'];
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
            'application/json': components['schemas']['index-job'];
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
    /** Search a collection by words, by meaning or both (hybrid: reciprocal rank fusion); the default is hybrid when the collection has vectors, else words */
    get: {
      parameters: {
        query: {
          q: string;
          k?: number;
          mode?: 'words' | 'semantic' | 'hybrid';
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {collection, language, mode, vectors_model, query, k, hits: [{chunk_id, score, rank, words_score?, vector_score?, source, text, snippet}]} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['search-result'];
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
  '/v2/collections/{name}/unanswered': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Knowledge gaps: the questions flows asked that no passage answered well enough, newest first */
    get: {
      parameters: {
        query?: {
          limit?: number;
          after?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {collection, items, next_after} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['unanswered-page'];
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
  '/v2/ops/processes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Processes of each component and when each was last seen (from the live-member sets their heartbeats keep in Redis) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Every component, each with its processes */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              components: {
                /** @enum {unknown} */
                component: 'api' | 'channel' | 'language' | 'flow' | 'retriver' | 'indexer';
                processes: {
                  /** @description CONSUMER_NAME of the process */
                  name: string;
                  /** Format: date-time */
                  last_seen: string;
                  /** @description its last heartbeat has not run out */
                  alive: boolean;
                }[];
              }[];
            };
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
  '/v2/ops/topics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What waits in each topic, and its dead letters */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Every topic */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              topics: {
                /** @enum {unknown} */
                topic: 'channel' | 'language' | 'flow' | 'retriver' | 'indexer';
                /** @description unread + pending */
                backlog: number;
                /** @description not read by its component yet */
                unread?: number;
                /** @description read, not acknowledged yet */
                pending: number;
                dead_letters: number;
              }[];
            };
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
  '/v2/ops/bots': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What waits for each bot now: its backlog as the edge's backpressure counts it (turns in flight and parked replies), and per channel the replies parked behind its circuit breaker, whether the breaker is open and for how long yet, and the failed platform calls in its window; the replies the platforms refused today, by code; bots with something waiting first */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Every bot the caller may see */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              bots: {
                app_id: string;
                name: string;
                /** @description turns in flight plus parked replies */
                backlog: number;
                /** @description something waits: a backlog, parked replies, an open breaker or failed platform calls */
                waiting: boolean;
                channels: {
                  /** Format: uuid */
                  id: string;
                  type: string;
                  /** @description replies waiting for the platform */
                  parked: number;
                  /** @enum {unknown} */
                  breaker: 'open' | 'closed';
                  /** @description how long it stays open yet */
                  open_ms: number;
                  /** @description failed calls in its window */
                  failures: number;
                }[];
                /** @description replies the platforms refused today (UTC), by channel type and the platform's code, most first */
                refused_today: {
                  channel_type: string;
                  code: string;
                  count: number;
                }[];
              }[];
            };
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
  '/v2/ops/dead-letters/{topic}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A topic's dead letters, oldest first */
    get: {
      parameters: {
        query?: {
          limit?: number;
          /** @description next_after of the previous page */
          after?: string;
        };
        header?: never;
        path: {
          topic: 'channel' | 'language' | 'flow' | 'retriver' | 'indexer';
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A page of dead letters */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                /** @description p<n>-<ms>-<seq>: its partition and its id in that partition's dead-letter stream */
                id: string;
                /** @description BW_ERR_* code of the failure */
                code: string;
                reason: string;
                /** @description the message as JSON; its raw text when it was not JSON */
                data: unknown;
                failed_at: string | null;
                topic?: string;
                /** @description the entry id it had in its partition */
                source_id?: string;
                /** @description the partition stream it was read from */
                stream?: string;
                /** @description the process that gave up on it */
                consumer?: string;
                deliveries?: number;
              }[];
              /** @description pass as `after` for the next page */
              next_after: string | null;
            };
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
  '/v2/ops/dead-letters/{topic}/{id}': {
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
          topic: 'channel' | 'language' | 'flow' | 'retriver' | 'indexer';
          /** @description a listed id, p<n>-<ms>-<seq>; any other names no dead letter (404) */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The dead letter */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description p<n>-<ms>-<seq>: its partition and its id in that partition's dead-letter stream */
              id: string;
              /** @description BW_ERR_* code of the failure */
              code: string;
              reason: string;
              /** @description the message as JSON; its raw text when it was not JSON */
              data: unknown;
              failed_at: string | null;
              topic?: string;
              /** @description the entry id it had in its partition */
              source_id?: string;
              /** @description the partition stream it was read from */
              stream?: string;
              /** @description the process that gave up on it */
              consumer?: string;
              deliveries?: number;
            };
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
  '/v2/ops/dead-letters/{topic}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Put dead letters back on their topic (as ./scripts/dead-letters.sh replay does); each goes back once, and one that still fails the topic schema is refused and kept */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          topic: 'channel' | 'language' | 'flow' | 'retriver' | 'indexer';
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['replay-dead-letters'];
        };
      };
      responses: {
        /** @description What was replayed and what was refused */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              replayed: number;
              replayed_ids: {
                /** @description the dead letter */
                id: string;
                /** @description its new entry in the topic */
                new_id: string;
              }[];
              /** @description at most 1000; refused_count has them all */
              refused: {
                id: string;
                /** @enum {unknown} */
                code:
                  | 'BW_ERR_NOT_FOUND'
                  | 'BW_ERR_MESSAGE_MALFORMED'
                  | 'BW_ERR_MESSAGE_INVALID'
                  | 'BW_ERR_CONFLICT';
                reason: string;
              }[];
              refused_count: number;
            };
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
  '/v2/bots/{app_id}/conversations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A bot's conversations, newest activity first, filtered
     * @description `last_message_at` is kept to the minute: it is rewritten only when over a minute old (docs/pipeline.md). Filters apply together; `q` matches words of the messages (docs/edge.md, "Conversations").
     */
    get: {
      parameters: {
        query?: {
          limit?: number;
          /** @description next_after of the previous page */
          after?: string;
          /** @description conversations on channels of this type only (telegram, whatsapp, web, or console: the test chats, which are left out without this filter) */
          channel_type?: string;
          /** @description the platform chat id, exactly */
          chat_id?: string;
          /** @description last message at or after this time (ISO 8601 with a time zone) */
          from?: string;
          /** @description last message at or before this time (ISO 8601 with a time zone) */
          to?: string;
          /** @description words every one of which a message of the conversation contains (whole words, or word prefixes of 3 or more characters) */
          q?: string;
        };
        header?: never;
        path: {
          app_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A page of conversations */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                /** Format: uuid */
                id: string;
                /** Format: uuid */
                channel_id?: string;
                channel_type: string;
                chat_id: string;
                language?: string | null;
                user_pid?: string;
                first_name?: string | null;
                last_name?: string | null;
                /** @description the flow state it waits in */
                state: string | null;
                /** @description the first 120 characters of the last message (text, caption or choice) */
                last_message_preview: string | null;
                last_message_type?: string | null;
                /** Format: date-time */
                created_at?: string;
                /**
                 * Format: date-time
                 * @description kept to the minute
                 */
                last_message_at: string;
              }[];
              /** @description pass as `after` for the next page */
              next_after: string | null;
            };
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
  '/v2/conversations/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One conversation with its flow state and variables */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The conversation */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              channel_id?: string;
              channel_type: string;
              chat_id: string;
              language?: string | null;
              user_pid?: string;
              first_name?: string | null;
              last_name?: string | null;
              /** @description the flow state it waits in */
              state: string | null;
              /** @description the first 120 characters of the last message (text, caption or choice) */
              last_message_preview?: string | null;
              last_message_type?: string | null;
              /** Format: date-time */
              created_at: string;
              /**
               * Format: date-time
               * @description kept to the minute
               */
              last_message_at: string;
              app_id: string;
              /** @description the flow's variables (may hold what users told the bot) */
              variables: Record<string, unknown>;
              /** @description the flow reached an end */
              ended?: boolean;
              state_updated_at?: string | null;
              /** @description when the user opted out of broadcasts (a stop word, or a Telegram block); null if not (DELETE …/opt-out clears it) */
              opted_out_at?: string | null;
            };
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
  '/v2/collections': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Knowledge collections by name: indexed ones, and ones with uploads only */
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
        /** @description A page of collections */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                name: string;
                owner_app_id: string | null;
                /** @description every bot may read it */
                shared: boolean;
                language?: string | null;
                /** @description files indexed */
                files: number;
                /** @description chunks searchable */
                chunks: number;
                /** @description documents uploaded to STORAGE_DIR */
                uploaded_files?: number;
                indexed_at?: string | null;
                updated_at: string | null;
                last_job: {
                  job_id: string;
                  /** @enum {unknown} */
                  status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';
                } | null;
              }[];
              /** @description pass as `after` for the next page */
              next_after: string | null;
            };
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
  '/v2/collections/{name}/jobs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A collection's indexing jobs, newest first (GET /v2/index-jobs/{job_id} has each file) */
    get: {
      parameters: {
        query?: {
          limit?: number;
          /** @description next_after of the previous page */
          after?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A page of jobs */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                job_id: string;
                collection: string;
                /** @enum {unknown} */
                status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';
                files_total: number;
                files_done: number;
                files_failed: number;
                chunks_done?: number;
                error?: string | null;
                attempts?: number;
                /** Format: date-time */
                created_at?: string;
                started_at?: string | null;
                finished_at?: string | null;
              }[];
              /** @description pass as `after` for the next page */
              next_after: string | null;
            };
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
            'application/json': Record<string, unknown>;
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
    /** Redis and Postgres are reachable and the process is not shutting down */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description {status: "ready", checks} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, unknown>;
          };
        };
        /** @description {status: "unavailable" or "draining", checks} */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': Record<string, unknown>;
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
      flow?: Record<string, unknown>;
      language?: string;
      active?: boolean;
      /** @description live-agent handoff: whole inputs (trimmed, case-insensitive) that start one, and how long one waits for an agent before the fallback state runs (seconds; HANDOFF_TIMEOUT_S when absent); docs/handoff.md */
      handoff?: {
        keywords?: string[];
        timeout_s?: number;
      };
      channel: components['schemas']['channel'];
    };
    /** update bot (admin API body) */
    'patch-bot': {
      name?: string;
      flow?: Record<string, unknown>;
      language?: string;
      active?: boolean;
      /** @description live-agent handoff: whole inputs (trimmed, case-insensitive) that start one, and how long one waits for an agent before the fallback state runs (seconds; HANDOFF_TIMEOUT_S when absent); docs/handoff.md */
      handoff?: {
        keywords?: string[];
        timeout_s?: number;
      };
    };
    /**
     * channel (admin API body)
     * @description A chat platform connection: its type and the credentials for it.
     */
    channel: {
      /** @enum {unknown} */
      type: 'telegram' | 'whatsapp' | 'web';
      details: Record<string, unknown>;
    } & (unknown & unknown & unknown);
    /**
     * channel change (PATCH /v2/bots/<app_id>/channels/<channel_id>)
     * @description New details for a channel, whole, as its type takes them when it is added (schemas/http/channel.json): a web channel's allowed origins, a new Telegram bot token, new WhatsApp credentials. What botwire made for the channel (Telegram's webhook secret, the web visitors' token key) stays.
     */
    'patch-channel': {
      details: Record<string, unknown>;
    };
    /**
     * a WhatsApp channel's messaging limit (PUT /v2/bots/<app_id>/channels/<channel_id>/messaging-limit)
     * @description The number's messaging limit as WhatsApp Manager shows it (Meta's tier), set on its own: the channel's other details, its access token among them, stay (docs/outbound.md, "The daily messaging limit").
     */
    'messaging-limit': {
      /**
       * @description unique users a day the number may start conversations with by template
       * @enum {unknown}
       */
      messaging_limit: 250 | 1000 | 10000 | 100000 | 'unlimited';
    };
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
      /**
       * @description how this job embeds the chunks; default: the collection's choice, else EMBEDDINGS_PROVIDER
       * @enum {unknown}
       */
      embedding_model?: 'local' | 'api' | 'none';
    };
    /**
     * PATCH /v2/collections/<name> body
     * @description Sets which bots may read a collection (its owner bot and whether every bot may), how it is searched by meaning (its embedding model; a change re-indexes it) and its relevance threshold. Fields left out stay as they are; a collection not yet indexed is created with them.
     */
    'patch-collection': {
      /** @description the bot that may read the collection (its app_id), or null for none */
      owner_app_id?: string | null;
      /** @description every bot may read the collection */
      shared?: boolean;
      /** @description how the collection is embedded from its next index on: local (the embedded model), api (EMBEDDINGS_API_URL), none (words only), or null for EMBEDDINGS_PROVIDER; a change re-indexes an indexed collection */
      embedding_model?: ('local' | 'api' | 'none') | null;
      /** @description relevance threshold of knowledge answers (cosine similarity, 0 to 1), or null for KNOWLEDGE_MIN_SIMILARITY */
      min_similarity?: number | null;
    };
    /**
     * message event
     * @description A transcript row was written (by channel): a user's message or a bot's call to the platform; or an agent's internal note (by api).
     */
    'event-message': {
      app_id: string;
      conversation_id: string;
      channel_type: string;
      /** @enum {unknown} */
      direction: 'in' | 'out';
      /** @description The transcript row's id, as GET /v2/conversations/{id}/messages shows it. */
      message_id: string;
      message_type: string;
      /** @description An outbound row's status: sent, or failed when the platform refused it; note for an agent's internal note. */
      status?: string;
      /** @description Who wrote an outbound message or note when not the bot: an agent's actor, during a handoff. */
      sent_by?: string;
      /** Format: date-time */
      created_at: string;
    };
    /**
     * conversation event
     * @description A conversation's flow state changed (by flow).
     */
    'event-conversation': {
      app_id: string;
      conversation_id: string;
      channel_type: string;
      /** @description The new state's name; absent when the conversation has none (reset). */
      state?: string;
      /** @description True when the flow reached an end: the next message starts over. */
      ended?: boolean;
    };
    /**
     * index-job event
     * @description An indexing job's progress or outcome (by indexer), at most a few per second per job.
     */
    'event-index-job': {
      job_id: string;
      collection: string;
      /** @enum {unknown} */
      status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';
      files_total: number;
      files_done: number;
      files_failed: number;
    };
    /**
     * bot event
     * @description A bot was created, changed (settings, channels, flow), deleted, or had a flow version published (by api).
     */
    'event-bot': {
      app_id: string;
      /** @enum {unknown} */
      change: 'created' | 'updated' | 'deleted' | 'flow-published';
    };
    /**
     * dead-letter event
     * @description A topic entry was moved to its partition's dead-letter stream (by the consumer of any component).
     */
    'event-dead-letter': {
      topic: string;
      /** @description The dead letter's id, p<n>-<ms>-<seq> (its partition and its entry there), as the dead-letter routes take it. */
      id: string;
      code: string;
    };
    /**
     * handoff event
     * @description A handoff began waiting, was claimed, was released (status back to waiting) or ended: returned, closed, or timed out to its fallback (by api and flow; docs/handoff.md).
     */
    'event-handoff': {
      /** @constant */
      type?: 'handoff';
      app_id: string;
      conversation_id: string;
      handoff_id: string;
      /** @enum {unknown} */
      status: 'waiting' | 'claimed' | 'returned' | 'closed' | 'fallback';
      queue: string | null;
      /** @description The actor holding the handoff, when claimed. */
      claimed_by?: string;
      /** Format: date-time */
      at: string;
    };
    /**
     * reset event
     * @description Sent first when the Last-Event-ID is older than the stream keeps (EVENTS_MAX_LEN) or ahead of it: events were missed, reload the lists. Its id is where the stream goes on from.
     */
    'event-reset': {
      reason: string;
    };
    /**
     * PUT /v2/bots/<app_id>/flow/draft body
     * @description The bot's draft flow: any JSON object. It is saved even when invalid, so nobody loses work; the answer lists its problems and warnings.
     */
    'flow-draft': {
      flow: Record<string, unknown>;
    };
    /**
     * POST /v2/bots/<app_id>/flow/publish body
     * @description Publishes the bot's draft as its next flow version, once the bot's conversation tests pass on it.
     */
    'publish-flow': {
      /** @description what changed, shown in the version list */
      note?: string;
      /** @description publish although conversation tests fail or cannot be run (owners only; audited) */
      override_tests?: boolean;
    };
    /**
     * a message to a user (an agent's reply, or one the bot writes first)
     * @description Text, buttons, media by URL, or (WhatsApp) an approved template, as agents and POST /v2/bots/<app_id>/messages send them (src/api/outbound/message.ts).
     */
    'outbound-message':
      | {
          /** @constant */
          message_type: 'text';
          text: string;
        }
      | {
          /** @constant */
          message_type: 'button';
          text: string;
          buttons: {
            id: string;
            title: string;
          }[];
        }
      | {
          /** @constant */
          message_type: 'image';
          url: string;
          caption?: string;
        }
      | {
          /** @constant */
          message_type: 'document';
          url: string;
          caption?: string;
          filename?: string;
        }
      | {
          /** @constant */
          message_type: 'template';
          name: string;
          language: string;
          /** @description a text per placeholder of the header and body, in order (WhatsApp refuses one with a new line, a tab or more than four spaces in a row); a media header's link; a URL button's address end */
          parameters?: {
            header?: string[];
            body?: string[];
            /** @description an image, video or document header's media: where WhatsApp fetches it (https), and a document's file name */
            header_media?: {
              link: string;
              filename?: string;
            };
            /** @description a text per URL button whose address ends in a placeholder, in the buttons' order: the end of its address */
            buttons?: {
              text: string;
            }[];
          };
        };
    /**
     * agent reply (POST /v2/handoffs/<id>/messages)
     * @description One message an agent sends to the user of a claimed handoff, with an id the client chose: the same id sent again sends nothing more.
     */
    'handoff-message': {
      client_message_id: string;
      message: components['schemas']['outbound-message'];
    };
    /**
     * a message the bot writes first (POST /v2/bots/<app_id>/messages)
     * @description One message to a user who has a conversation with the bot (or on WhatsApp a template to any number, by channel and number), with a key the caller chose: the same key sends once and answers the first result (docs/outbound.md).
     */
    'send-message': {
      /** @description the same key with the same request sends once; with another request it is refused */
      idempotency_key: string;
      /** @description the conversation, by its id or by the channel and the platform's chat id */
      to:
        | {
            /** Format: uuid */
            conversation_id: string;
          }
        | {
            /** Format: uuid */
            channel_id: string;
            chat_id: string;
          };
      message: components['schemas']['outbound-message'];
      /** @description a state of the bot's published flow that has a wait: the user's answer goes there, as if the state had just asked (its actions are not run); the conversation keeps its variables */
      flow_state?: string;
    };
    /**
     * a broadcast (POST /v2/bots/<app_id>/broadcasts)
     * @description One message or template to an audience of the bot's users on one channel, each message filled from the user's own values (docs/outbound.md). With dry_run nothing is made: the answer says how many would get it and how many would be skipped, and why. The message's texts and template parameters may hold {{name}} placeholders, filled per recipient from the CSV's columns or the user's stored variables.
     */
    'create-broadcast': {
      name: string;
      /**
       * Format: uuid
       * @description the bot's Telegram, WhatsApp or web channel it goes out on
       */
      channel_id: string;
      /** @description who gets it: every user of the channel, those matching a filter, or the platform ids of a CSV */
      audience:
        | {
            /** @constant */
            kind: 'all';
          }
        | {
            /** @constant */
            kind: 'filter';
            /** @description the user's language (BCP 47, as detected or chosen) */
            language?: string;
            /**
             * Format: date-time
             * @description users whose conversation moved at this time or later
             */
            active_since?: string;
            /**
             * Format: date-time
             * @description users whose conversation last moved before this time
             */
            active_before?: string;
            /** @description stored variables the user's conversation must have, with these values */
            variables?: {
              [key: string]: string | number | boolean;
            };
          }
        | {
            /** @constant */
            kind: 'csv';
            /** @description CSV with a header row: a chat_id column (the Telegram chat id, WhatsApp number or web visitor id), and any others, whose values fill the placeholders of the same name */
            csv: string;
          };
      message: components['schemas']['outbound-message'];
      /** @description a state of the bot's published flow that has a wait: each recipient's answer goes there, as if the state had just asked (docs/outbound.md) */
      flow_state?: string;
      /**
       * Format: date-time
       * @description when it starts; now when absent or past
       */
      start_at?: string;
      /** @description make nothing: answer the audience's counts */
      dry_run?: boolean;
    };
    broadcast: {
      /** Format: uuid */
      id: string;
      app_id: string;
      /** Format: uuid */
      channel_id: string;
      name: string;
      /** @enum {unknown} */
      status: 'scheduled' | 'running' | 'paused' | 'cancelled' | 'finished';
      /** @description as asked; a CSV as {kind, rows} */
      audience?: Record<string, unknown>;
      /** @description as asked, with its placeholders */
      message?: Record<string, unknown>;
      /** @description the flow state recipients' answers go to; null: where each conversation is */
      flow_state?: string | null;
      created_by?: string;
      /** Format: date-time */
      created_at?: string;
      /** Format: date-time */
      start_at?: string;
      /** Format: date-time */
      started_at?: string | null;
      /** Format: date-time */
      ended_at?: string | null;
      /**
       * Format: date-time
       * @description running, but waiting until then for its WhatsApp number's messaging limit to have room
       */
      waiting_until?: string | null;
      /** @description when made: a WhatsApp template broadcast: the number's messaging limit (users a day it may start conversations with), those it started in the 24 hours before the start, the recipients this one starts conversations with (their window closed), and the days it takes: what the limit has no room for today goes on over the following days */
      messaging_limit?: {
        limit: number | 'unlimited';
        used: number;
        starting: number;
        days: {
          /** Format: date-time */
          from: string;
          users: number;
        }[];
      };
      /** @description recipients by outcome: queued (not sent yet), sending (a call under way), sent (the platform took it; delivered and read of those, WhatsApp only), failed (refused), unknown (a process stopped during the call: not sent again), skipped (by reason: opted_out, window_closed, missing_value, invalid_value, no_conversation, duplicate, cancelled) */
      counts: {
        total: number;
        queued: number;
        sending: number;
        sent: number;
        delivered: number;
        read: number;
        failed: number;
        unknown: number;
        skipped: number;
        skipped_by_reason: {
          [key: string]: number;
        };
        failed_by_reason: {
          [key: string]: number;
        };
      };
    };
    /**
     * test chat (POST /v2/bots/<app_id>/test-chats)
     * @description Which flow a new test chat runs: the draft (the default; the current version when the bot has no draft), the current version, or a version by number.
     */
    'test-chat': {
      version?: ('draft' | 'current') | number;
    };
    /**
     * web visitor message (POST /v2/callback/web/<app_id>)
     * @description What a web visitor sends: typed text, a button press or a list pick, with an id the client chose so a resend is recognised.
     */
    'test-chat-message': {
      client_message_id: string;
      text?: string;
      button_id?: string;
      list_row_id?: string;
    } & (unknown | unknown | unknown);
    /**
     * conversation test (PUT /v2/bots/<app_id>/tests/<name>)
     * @description A named script of what a user says and presses, with what the bot must answer at each step, and stand-ins for the flow's HTTP, knowledge and LLM steps (docs/flows.md, "Conversation tests"). The name in the path is the test's; a name in the body must be the same.
     */
    'conversation-test': {
      name?: components['schemas']['conversation-test']['$defs']['name'];
      description?: string;
      /** @description variables the conversation starts with */
      variables?: Record<string, unknown>;
      stand_ins?: {
        http?: {
          /** @enum {unknown} */
          method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
          /** @description the URL called; * stands for any characters */
          url: string;
          status?: number;
          /** @description the answer's JSON body */
          body?: unknown;
        }[];
        knowledge?: {
          collection?: string;
          question_contains?: string;
          answer: string;
          found?: boolean;
        }[];
        llm?: {
          prompt_contains?: string;
          /** @description text, or the JSON a json output asks for */
          answer: unknown;
        }[];
      };
      steps: ({
        say?: string;
        /** @description the id of a button or list row */
        press?: string;
        expect?: components['schemas']['conversation-test']['$defs']['expectation'][];
      } & (unknown | unknown))[];
      $defs: {
        /** @description letters, digits, spaces, dots, dashes and underscores; at most 100 */
        name: string;
        reply: number;
        expectation:
          | {
              text_equals: string;
              reply?: components['schemas']['conversation-test']['$defs']['reply'];
            }
          | {
              text_contains: string;
              reply?: components['schemas']['conversation-test']['$defs']['reply'];
            }
          | {
              text_matches: string;
              reply?: components['schemas']['conversation-test']['$defs']['reply'];
            }
          | {
              buttons: string[];
              reply?: components['schemas']['conversation-test']['$defs']['reply'];
            }
          | {
              state: string;
            }
          | {
              variable: string;
              equals: unknown;
            }
          | {
              handoff: boolean;
            }
          | {
              ended: boolean;
            }
          | {
              replies: number;
            };
      };
    };
    /**
     * run conversation tests (POST /v2/bots/<app_id>/tests/run)
     * @description Which flow the bot's saved tests run against (the draft by default; the current version when the bot has no draft), and which tests (all by default).
     */
    'tests-run': {
      version?: ('draft' | 'current') | number;
      names?: string[];
    };
    /**
     * save a test chat as a conversation test (POST /v2/bots/<app_id>/tests/from-chat)
     * @description The test chat whose conversation becomes the test, and the test's name; a test of that name is replaced.
     */
    'test-from-chat': {
      chat_id: string;
      /** @description letters, digits, spaces, dots, dashes and underscores; at most 100 */
      name: string;
    };
    /**
     * console sign-in (POST /v2/session body)
     * @description An account's email and password, or the admin key (the bootstrap owner).
     */
    'session-request':
      | {
          key: string;
        }
      | {
          email: string;
          password: string;
        };
    /**
     * POST /v2/accounts body
     * @description An account made by an owner, with its first password (invites let people choose their own).
     */
    'create-account': {
      email: string;
      name: string;
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      password: string;
      /** @description app ids the account is assigned to (what an agent may see) */
      bots?: string[];
    };
    /**
     * PATCH /v2/accounts/<id> body
     * @description Fields left out stay as they are. disabled: true ends the account's sessions and tokens at once; bots replaces the assignment.
     */
    'patch-account': {
      name?: string;
      /** @enum {unknown} */
      role?: 'owner' | 'builder' | 'agent' | 'viewer';
      disabled?: boolean;
      password?: string;
      bots?: string[];
    };
    /**
     * POST /v2/tokens body
     * @description A personal API token of the signed-in account; role defaults to the account's and may not exceed it.
     */
    'create-token': {
      name: string;
      /** @enum {unknown} */
      role?: 'owner' | 'builder' | 'agent' | 'viewer';
    };
    /** POST /v2/invites body */
    'create-invite': {
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      /** @description when set, the account is made with this email; otherwise the invited person enters one */
      email?: string;
      /** @description app ids the new account is assigned to: at least one for an agent, who sees only its bots */
      bots?: string[];
    };
    /** POST /v2/invites/<token>/accept body */
    'accept-invite': {
      name: string;
      password: string;
      /** @description required when the invite names no email; ignored otherwise */
      email?: string;
    };
    account: {
      /** Format: uuid */
      id: string;
      email: string;
      name: string;
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      disabled: boolean;
      /** Format: date-time */
      disabled_at: string | null;
      /** @description assigned bots (app ids) */
      bots: string[];
      created_by: string;
      /** Format: date-time */
      created_at?: string;
      /** Format: date-time */
      updated_at?: string;
    };
    'account-list': {
      items: components['schemas']['account'][];
    };
    me: {
      /** @description "admin-key", "account:<email>" or "token:<id>@<email>" */
      actor: string;
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      /** @description null for the admin key */
      account_id: string | null;
      email: string | null;
      name: string;
      /** @description an agent's assigned bots; null: every bot */
      bots: string[] | null;
      /** @description the admin routes the caller may call, as "METHOD /path/:param" (the permission table the API enforces, docs/accounts.md); the console shows only the controls of these */
      may: string[];
    };
    'session-item': {
      /** Format: uuid */
      id: string;
      actor: string;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      expires_at: string;
      address: string;
      user_agent: string;
      /** @description the session of this request */
      current: boolean;
    };
    'session-list': {
      items: components['schemas']['session-item'][];
    };
    token: {
      /** Format: uuid */
      id: string;
      name: string;
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      last_used_at: string | null;
      /** Format: date-time */
      revoked_at: string | null;
      /** @description only in the answer that made it: bwp_... */
      token?: string;
    };
    'token-list': {
      items: components['schemas']['token'][];
    };
    invite: {
      /** Format: uuid */
      id: string;
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      email: string | null;
      bots: string[];
      /** Format: date-time */
      expires_at: string;
      /** Format: date-time */
      used_at: string | null;
      account_id?: string | null;
      created_by: string;
      /** Format: date-time */
      created_at?: string;
      /** @description only in the answer that made it */
      token?: string;
      /** @description only in the answer that made it: the link to give */
      url?: string;
    };
    'invite-list': {
      items: components['schemas']['invite'][];
    };
    'invite-public': {
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      email: string | null;
      /** Format: date-time */
      expires_at: string;
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
      /** @description whatsapp: the Business Account its message templates are synced from */
      business_account_id?: string | null;
      /**
       * @description whatsapp: unique users a day the number may start conversations with by template (its tier; 250 unless set)
       * @enum {unknown}
       */
      messaging_limit?: 250 | 1000 | 10000 | 100000 | 'unlimited';
      /** @description web: the page origins the widget may run on */
      allowed_origins?: string[];
      sessions_url?: string;
      events_url?: string;
      widget_url?: string;
      /** @description web: the line to paste into the pages */
      widget_snippet?: string;
    };
    bot: {
      /** Format: uuid */
      app_id: string;
      name: string;
      language?: string | null;
      active: boolean;
      /** @description live-agent handoff settings: keywords and timeout_s (docs/handoff.md) */
      handoff?: {
        keywords?: string[];
        timeout_s?: number;
      };
      /** @description the current flow; absent for an agent, who gets `states` instead */
      flow?: Record<string, unknown>;
      /** @description for an agent only: the names of the flow's states (agents may not read the flow) */
      states?: string[];
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
      /** Format: uuid */
      id: string;
      /** @description "account:<email>", or "admin-key" for an admin-key sign-in */
      actor: string;
      /** @enum {unknown} */
      role: 'owner' | 'builder' | 'agent' | 'viewer';
      /** @description null for an admin-key sign-in */
      account_id: string | null;
      /** Format: date-time */
      expires_at: string;
    };
    'web-event': {
      /** @description stable message id: out:<turn_id>:<call> or in:<client_message_id> */
      id: string;
      /** Format: uuid */
      conversation_id: string;
      /** @enum {unknown} */
      direction: 'in' | 'out';
      turn_id: string;
      /** @enum {unknown} */
      message_type: 'text' | 'button' | 'option_list' | 'image' | 'document' | 'interactive_reply';
      text?: string;
      buttons?: {
        id: string;
        title: string;
      }[];
      list?: {
        button: string;
        sections: {
          title?: string;
          rows: {
            id: string;
            title: string;
            description?: string;
          }[];
        }[];
      };
      image?: {
        url: string;
        caption?: string;
      };
      document?: {
        url: string;
        filename?: string;
        caption?: string;
      };
      /** @description direction in: the button or row the visitor chose */
      choice_id?: string;
      /** Format: date-time */
      created_at: string;
    };
    /**
     * POST /v2/ops/dead-letters/<topic>/replay body
     * @description The dead letters to put back on their topic: by id, or every one the topic holds.
     */
    'replay-dead-letters':
      | {
          /** @description ids of dead letters, as listed (p<partition>-<ms>-<seq>) */
          ids: string[];
        }
      | {
          /**
           * @description every dead letter the topic holds now
           * @constant
           */
          all: true;
        };
    collection: {
      collection: string;
      /** @description the bot whose flows may read it */
      owner_app_id: string | null;
      /** @description every bot may read it */
      shared: boolean;
      /** @description its own choice of embedding model; null: EMBEDDINGS_PROVIDER */
      embedding_model: ('local' | 'api' | 'none') | null;
      /** @description its own relevance threshold (cosine); null: KNOWLEDGE_MIN_SIMILARITY */
      min_similarity: number | null;
      /**
       * @description the model its next index embeds with (embedding_model, else EMBEDDINGS_PROVIDER)
       * @enum {unknown}
       */
      embedding_model_effective: 'local' | 'api' | 'none';
      /** @description the relevance threshold its answers use (min_similarity, else KNOWLEDGE_MIN_SIMILARITY) */
      min_similarity_effective: number;
      uploaded_files: string[];
      indexed: {
        language: string;
        files: number;
        chunks: number;
        at: string | null;
        /** @description the model of its vectors (local:use-lite-en, api:<model>); null: searched by words only */
        vectors_model: string | null;
      } | null;
      last_job: {
        job_id: string;
        /** @enum {unknown} */
        status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';
      } | null;
    };
    'collection-ownership': {
      collection: string;
      /** @description the bot whose flows may read it */
      owner_app_id: string | null;
      /** @description every bot may read it */
      shared: boolean;
      /** @description its own choice of embedding model; null: EMBEDDINGS_PROVIDER */
      embedding_model: ('local' | 'api' | 'none') | null;
      /** @description its own relevance threshold (cosine); null: KNOWLEDGE_MIN_SIMILARITY */
      min_similarity: number | null;
      /** @description the job re-embedding the collection, when the embedding model changed */
      reindex_job_id?: string;
    };
    'unanswered-page': {
      collection: string;
      items: {
        id: string;
        question: string;
        /** @description the best passage's similarity by meaning; null without vectors */
        best_score: number | null;
        /** @enum {unknown} */
        mode: 'words' | 'semantic' | 'hybrid';
        app_id: string | null;
        conversation_id: string | null;
        /** Format: date-time */
        created_at: string;
      }[];
      /** @description pass as after for the next page (older questions); null on the last */
      next_after: string | null;
    };
    'upload-result': {
      collection: string;
      files: {
        name: string;
        bytes: number;
        sha256: string;
      }[];
    };
    'index-started': {
      job_id: string;
      collection: string;
      files: string[];
      /** @enum {unknown} */
      status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';
    };
    'index-job': {
      job_id: string;
      collection: string;
      /** @enum {unknown} */
      status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';
      progress: {
        files_total: number;
        files_done: number;
        chunks_done: number;
        /** @description vectors this job embedded */
        chunks_embedded?: number;
      };
      /** @enum {unknown} */
      embedding_model?: 'local' | 'api' | 'none';
      files: {
        name: string;
        /** @enum {unknown} */
        status: 'pending' | 'indexed' | 'failed';
        /** @description indexed: chunks written */
        chunks?: number;
        /** @description indexed PDF: pages read */
        pages?: number;
        /** @description indexed spreadsheet: sheets read */
        sheets?: number;
        /** @description indexed spreadsheet: rows read */
        rows?: number;
        /** @description failed: chunks of the previous content kept */
        kept_chunks?: number;
        /** @description failed: why */
        error?: {
          code: string;
          reason?: string;
          message: string;
        };
      }[];
      /** @description why the whole job failed */
      error?: string;
      attempts: number;
      /** Format: date-time */
      created_at: string;
      started_at: string | null;
      finished_at: string | null;
    };
    'search-result': {
      collection: string;
      /** @description the text search configuration it was indexed with */
      language: string;
      /**
       * @description the mode that ran
       * @enum {unknown}
       */
      mode: 'words' | 'semantic' | 'hybrid';
      vectors_model: string | null;
      min_similarity?: number | null;
      query: string;
      k: number;
      hits: {
        chunk_id: string;
        /** @description words: the rank score; semantic: the similarity; hybrid: the fused score */
        score: number;
        /** @description 1-based, after fusion in hybrid */
        rank: number;
        words_score?: number;
        words_rank?: number;
        /** @description holds every word of the query */
        words_all?: boolean;
        /** @description cosine similarity to the query */
        vector_score?: number;
        vector_rank?: number;
        /** @description a PDF page, or a sheet and its first and last row */
        source:
          | {
              file: string;
              page: number;
            }
          | {
              file: string;
              sheet: string;
              rows: number[];
            };
        text: string;
        /** @description the best fragments, matched words between <mark> and </mark> */
        snippet: string;
      }[];
    };
    'message-page': {
      items: {
        /** @description the transcript row, increasing */
        id: string;
        /** @enum {unknown} */
        direction: 'in' | 'out';
        turn_id?: string | null;
        platform_message_id?: string | null;
        message_type: string;
        /** @description the message as the pipeline carried it (schemas/parts) */
        body: unknown;
        /** @description out: sent or failed */
        status?: string | null;
        error?: string | null;
        /** @description who wrote it when not the bot: an agent's actor (a reply or a note) */
        sent_by?: string | null;
        /** Format: date-time */
        created_at: string;
      }[];
      /** @description pass as `after` for the next page */
      next_after: string | null;
    };
    'audit-entry': {
      /** @description row id; newer rows have larger ids */
      id: string;
      /** Format: date-time */
      at: string;
      /** @description who made the change: "admin-key", "console", "account:<email>", ... */
      actor: string;
      /** @description null for the admin key */
      account_id: string | null;
      /** @description the peer address of the connection */
      address: string;
      /** @description e.g. bot.update, flow.publish (docs/audit.md) */
      action: string;
      /** @description bot, channel, flow, collection, topic, session */
      target_type: string;
      target_id: string | null;
      /** @description the bot concerned */
      app_id: string | null;
      /** @description what changed, with every secret removed */
      summary: {
        before?: Record<string, unknown>;
        after?: Record<string, unknown>;
      };
    };
    'audit-page': {
      items: components['schemas']['audit-entry'][];
      /** @description pass as `after` for the next page */
      next_after: string | null;
    };
    handoff: {
      /** Format: uuid */
      id: string;
      app_id: string;
      /** Format: uuid */
      conversation_id: string;
      /** @enum {unknown} */
      status: 'waiting' | 'claimed' | 'returned' | 'closed' | 'fallback';
      queue: string | null;
      /**
       * @description a handoff step, a bot keyword, or a global intent of the flow (docs/flows.md)
       * @enum {unknown}
       */
      reason?: 'step' | 'keyword' | 'intent';
      /** Format: date-time */
      created_at: string;
      /**
       * Format: date-time
       * @description no claim by then: the fallback state runs
       */
      deadline_at?: string | null;
      /** @description the holder's actor */
      claimed_by?: string | null;
      /** @description the holder's account id (null when the admin key holds it) */
      claimed_account?: string | null;
      /** Format: date-time */
      claimed_at?: string | null;
      /** Format: date-time */
      first_reply_at?: string | null;
      /** Format: date-time */
      ended_at?: string | null;
      ended_by?: string | null;
      return_state?: string | null;
      fallback_state?: string | null;
      /** @description seconds waited: until the claim, the end, or now */
      waiting_s: number;
      /** @description list and detail, not claim or release */
      channel_type?: string;
      /** @description list and detail, not claim or release */
      chat_id?: string;
      /** @description the user's name, as the platform gave it */
      first_name?: string | null;
      last_name?: string | null;
    };
    'handoff-detail': {
      /** Format: uuid */
      id: string;
      app_id: string;
      /** Format: uuid */
      conversation_id: string;
      /** @enum {unknown} */
      status: 'waiting' | 'claimed' | 'returned' | 'closed' | 'fallback';
      queue: string | null;
      /**
       * @description a handoff step, a bot keyword, or a global intent of the flow (docs/flows.md)
       * @enum {unknown}
       */
      reason?: 'step' | 'keyword' | 'intent';
      /** Format: date-time */
      created_at: string;
      /**
       * Format: date-time
       * @description no claim by then: the fallback state runs
       */
      deadline_at?: string | null;
      /** @description the holder's actor */
      claimed_by?: string | null;
      /** @description the holder's account id (null when the admin key holds it) */
      claimed_account?: string | null;
      /** Format: date-time */
      claimed_at?: string | null;
      /** Format: date-time */
      first_reply_at?: string | null;
      /** Format: date-time */
      ended_at?: string | null;
      ended_by?: string | null;
      return_state?: string | null;
      fallback_state?: string | null;
      /** @description seconds waited: until the claim, the end, or now */
      waiting_s: number;
      /** @description list and detail, not claim or release */
      channel_type: string;
      /** @description list and detail, not claim or release */
      chat_id: string;
      /** @description the user's name, as the platform gave it */
      first_name: string | null;
      last_name: string | null;
      /** @description the states of the bot's published flow, sorted by name: where it may be handed back */
      states: string[];
      /** @description WhatsApp: whether the user's 24-hour window is open (free-form replies may go; otherwise only a template) and when it closes; null elsewhere. closes_at is null when the user never wrote */
      whatsapp_window: {
        open: boolean;
        /** Format: date-time */
        closes_at: string | null;
      } | null;
      conversation: {
        id?: string;
        channel_id?: string;
        channel_type?: string;
        chat_id?: string;
        user_pid?: string;
        language?: string | null;
        /** @description the flow state it waits in */
        state?: string | null;
        /** @description the flow variables */
        variables?: Record<string, unknown>;
      };
      transcript: {
        /** @description the last 20 rows before the handoff began */
        before: {
          id: string;
          /** @enum {unknown} */
          direction: 'in' | 'out';
          turn_id?: string | null;
          message_type: string;
          body: Record<string, unknown>;
          /** @description received, sent, failed, ..., or note */
          status: string | null;
          /** @description why the platform refused an outbound message */
          error?: string | null;
          /** @description null: the bot's; else the agent's actor */
          sent_by: string | null;
          /** Format: date-time */
          created_at: string;
        }[];
        /** @description rows from its start, oldest first (at most 500) */
        since: {
          id: string;
          /** @enum {unknown} */
          direction: 'in' | 'out';
          turn_id?: string | null;
          message_type: string;
          body: Record<string, unknown>;
          /** @description received, sent, failed, ..., or note */
          status: string | null;
          /** @description why the platform refused an outbound message */
          error?: string | null;
          /** @description null: the bot's; else the agent's actor */
          sent_by: string | null;
          /** Format: date-time */
          created_at: string;
        }[];
        /** @description more rows follow: page on with GET /v2/conversations/{id}/messages */
        more: boolean;
      };
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
              | 'BW_ERR_NO_REPLICA'
              | 'BW_ERR_OVERLOADED'
              | 'BW_ERR_BOT_OVERLOADED'
              | 'BW_ERR_EVENTS_BUSY'
              | 'BW_ERR_LAYOUT'
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
              | 'BW_ERR_EMBEDDINGS_INVALID'
              | 'BW_ERR_SEARCH_MODE'
              | 'BW_ERR_DOCUMENT_UNREADABLE'
              | 'BW_ERR_DOCUMENT_TOO_LARGE'
              | 'BW_ERR_DOCUMENT_UNSUPPORTED'
              | 'BW_ERR_FLOW_INVALID'
              | 'BW_ERR_NO_DRAFT'
              | 'BW_ERR_TESTS_FAILED'
              | 'BW_ERR_TESTS_UNAVAILABLE'
              | 'BW_ERR_DRAFT_CHANGED'
              | 'BW_ERR_FLOW_LOOP'
              | 'BW_ERR_FLOW_STUCK'
              | 'BW_ERR_FLOW_HTTP_REFUSED'
              | 'BW_ERR_FLOW_BUDGET'
              | 'BW_ERR_FLOW_STATE_TOO_LARGE'
              | 'BW_ERR_FLOW_LLM_UNAVAILABLE'
              | 'BW_ERR_FLOW_LLM_TIMEOUT'
              | 'BW_ERR_FLOW_LLM_INVALID_OUTPUT'
              | 'BW_ERR_FLOW_LLM_DAILY_BUDGET'
              | 'BW_ERR_FLOW_LLM_TURN_BUDGET'
              | 'BW_ERR_FLOW_LLM_OFF_TOPIC'
              | 'BW_ERR_STATE_CONFLICT'
              | 'BW_ERR_CREDENTIALS_KEY'
              | 'BW_ERR_BODY_TIMEOUT'
              | 'BW_ERR_AUTH_RATE_LIMITED'
              | 'BW_ERR_FILE_NAME'
              | 'BW_ERR_FILE_EXISTS'
              | 'BW_ERR_UPLOAD_QUOTA'
              | 'BW_ERR_ORIGIN_REFUSED'
              | 'BW_ERR_FORBIDDEN'
              | 'BW_ERR_INVITE_INVALID'
              | 'BW_ERR_CONSOLE_NOT_BUILT'
              | 'BW_ERR_BAD_TOKEN'
              | 'BW_ERR_TOKEN_EXPIRED'
              | 'BW_ERR_TOO_MANY_STREAMS'
              | 'BW_ERR_VISITOR_STREAMS'
              | 'BW_ERR_HANDOFF_CLAIMED'
              | 'BW_ERR_WINDOW_CLOSED'
              | 'BW_ERR_MESSAGING_LIMIT'
              | 'BW_ERR_BROADCAST_STATE'
              | 'BW_ERR_TEMPLATE'
              | 'BW_ERR_IDEMPOTENCY_MISMATCH'
              | 'BW_ERR_HANDOFF_NOT_YOURS'
              | 'BW_ERR_HANDOFF_ENDED'
              | 'BW_ERR_UNKNOWN_STATE';
            message: string;
            details?: Record<string, unknown>;
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
