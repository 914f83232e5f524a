/** What the operations routes answer (the OPS contract; see docs/operations.md). */

/** `GET /v2/ops/processes`. */
export interface ProcessesView {
  components: { component: string; processes: ProcessView[] }[];
}

export interface ProcessView {
  name: string;
  /** Its last heartbeat (ISO 8601). */
  last_seen: string;
  /** False once its heartbeat ran out (it is about to leave the list). */
  alive?: boolean;
}

export interface TopicView {
  topic: string;
  /** Entries not yet delivered, or delivered and not yet acknowledged. */
  backlog: number;
  /** Delivered and not yet acknowledged. */
  pending: number;
  /** Not yet delivered. */
  unread?: number;
  dead_letters: number;
}

/** `GET /v2/ops/topics`. */
export interface TopicsView {
  topics: TopicView[];
}

/** A dead letter: the entry that could not be handled, and why. */
export interface DeadLetter {
  id: string;
  code: string;
  reason: string;
  data: unknown;
  /** Null for letters recorded without a time. */
  failed_at: string | null;
  /** Delivery attempts before it was dead-lettered. */
  deliveries?: number;
}

/** A dead letter that was not replayed; it stays in the dead-letter stream. */
export interface ReplayRefusal {
  id: string;
  code: string;
  reason: string;
}

/** `POST /v2/ops/dead-letters/:topic/replay`. */
export interface ReplayResult {
  replayed: number;
  /** The refusals, the first 1,000 when there are more. */
  refused: ReplayRefusal[];
  /** How many were refused in all. */
  refused_count?: number;
}

/** The `dead-letter` live event. */
export interface DeadLetterEvent {
  topic: string;
  id: string;
  code: string;
}
