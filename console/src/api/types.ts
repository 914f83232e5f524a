/**
 * Named types of the admin API's answers, bodies and live events, every one taken from
 * schema.d.ts (generated from `GET /v2/openapi.json`): the one place pages get them from, so no
 * shape is written twice by hand.
 */
import type { components, paths } from './schema.d.ts';

type Schemas = components['schemas'];
type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** The JSON a route answers on success (200, else 201, else 202). */
export type Answer<P extends keyof paths, M extends Method & keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: infer A }
    ? JsonOf<A>
    : R extends { 201: infer A }
      ? JsonOf<A>
      : R extends { 202: infer A }
        ? JsonOf<A>
        : never
  : never;

/** The JSON body a route takes. */
export type Body<P extends keyof paths, M extends Method & keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

// Bots and the session.
export type Bot = Schemas['bot'];
export type ChannelView = Schemas['channel-view'];
export type Session = Schemas['session'];
export type WebhookResult = Schemas['webhook-result'];
export type NewBot = Schemas['create-bot'];
export type BotPatch = Schemas['patch-bot'];

// Flows: drafts, versions, validation.
export type BotFlow = Answer<'/v2/bots/{app_id}/flow', 'get'>;
export type PublishedFlow = BotFlow['published'];
export type DraftFlow = Answer<'/v2/bots/{app_id}/flow/draft', 'put'>;
/** A run of a bot's conversation tests (also `details.run` of a publish they refused). */
export type TestRun = Answer<'/v2/bots/{app_id}/tests/run', 'post'>;
export type Validation = Answer<'/v2/flows/validate', 'post'>;
/** One finding of the validator: a JSON Pointer into the flow and what is wrong there. */
export type Problem = Validation['problems'][number];
export type VersionSummary = Answer<'/v2/bots/{app_id}/flow/versions', 'get'>['items'][number];
export type VersionDetail = Answer<'/v2/bots/{app_id}/flow/versions/{version}', 'get'>;
export type Published = Answer<'/v2/bots/{app_id}/flow/publish', 'post'>;
export type Impact = Answer<'/v2/bots/{app_id}/flow/impact', 'get'>;

// Conversations and transcripts.
export type ConversationPage = Answer<'/v2/bots/{app_id}/conversations', 'get'>;
export type ConversationSummary = ConversationPage['items'][number];
export type ConversationQuery = NonNullable<
  paths['/v2/bots/{app_id}/conversations']['get']['parameters']['query']
>;
export type ConversationDetail = Answer<'/v2/conversations/{id}', 'get'>;
export type MessagePage = Schemas['message-page'];
/** A row of a conversation's transcript; its `body` is the message as the pipeline carried it. */
export type TranscriptRow = MessagePage['items'][number];

// The web channel, as a visitor.
export type TestChatInfo = Answer<'/v2/bots/{app_id}/test-chats', 'post'>;
export type TestChatSource = TestChatInfo['source'];
export type TestChatMessage = Body<'/v2/bots/{app_id}/test-chats/{chat_id}/messages', 'post'>;
export type TestChatAccepted = Answer<'/v2/bots/{app_id}/test-chats/{chat_id}/messages', 'post'>;
/** An event of a web visitor's stream (`GET /v2/web/{app_id}/events`). */
export type WebEvent = Schemas['web-event'];

// Knowledge.
export type CollectionPage = Answer<'/v2/collections', 'get'>;
export type CollectionItem = CollectionPage['items'][number];
export type CollectionDetail = Schemas['collection'];
export type UploadResult = Schemas['upload-result'];
export type IndexStarted = Schemas['index-started'];
export type IndexJob = Schemas['index-job'];
export type JobStatus = IndexJob['status'];
/** One file of a job: pending, indexed (with its counts) or failed (with the reason). */
export type FileOutcome = IndexJob['files'][number];
export type JobPage = Answer<'/v2/collections/{name}/jobs', 'get'>;
export type JobSummary = JobPage['items'][number];
export type SearchResult = Schemas['search-result'];
export type SearchHit = SearchResult['hits'][number];
export type SearchMode = SearchResult['mode'];
export type UnansweredPage = Schemas['unanswered-page'];
export type CollectionSettings = Schemas['collection-ownership'];
export type HitSource = SearchHit['source'];

// Operations.
export type ProcessesView = Answer<'/v2/ops/processes', 'get'>;
export type TopicsView = Answer<'/v2/ops/topics', 'get'>;
export type TopicView = TopicsView['topics'][number];
export type BotsAtWorkView = Answer<'/v2/ops/bots', 'get'>;
export type Topic = TopicView['topic'];
export type DeadLetterPage = Answer<'/v2/ops/dead-letters/{topic}', 'get'>;
export type DeadLetter = DeadLetterPage['items'][number];
/** Some dead letters of a topic by id, or all it holds. */
export type ReplayTarget = Schemas['replay-dead-letters'];
export type ReplayResult = Answer<'/v2/ops/dead-letters/{topic}/replay', 'post'>;

// The console's live events (`GET /v2/events`), by event name.
export type LiveMessage = Schemas['event-message'];
export type LiveConversation = Schemas['event-conversation'];
export type IndexJobEvent = Schemas['event-index-job'];
export type DeadLetterEvent = Schemas['event-dead-letter'];
export type BotEvent = Schemas['event-bot'];
export type LiveHandoff = Schemas['event-handoff'];

// Handoffs: the agent's inbox (docs/handoff.md).
export type HandoffPage = Answer<'/v2/handoffs', 'get'>;
export type HandoffItem = Schemas['handoff'];
export type HandoffQuery = NonNullable<paths['/v2/handoffs']['get']['parameters']['query']>;
export type HandoffDetail = Schemas['handoff-detail'];
export type HandoffStatus = HandoffItem['status'];
/** What an agent sends the user: text, buttons, an image or a document by URL, a template. */
export type AgentMessage = Body<'/v2/handoffs/{id}/messages', 'post'>['message'];
/** A bot's WhatsApp template as last synced (docs/outbound.md). */
export type WhatsAppTemplate = Answer<'/v2/bots/{app_id}/templates', 'get'>['items'][number];
