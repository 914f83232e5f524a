/** What the operations routes answer (the OPS contract; see docs/operations.md). */

/** `GET /v2/ops/processes`. */
export interface ProcessesView {
  components: { component: string; processes: { name: string; last_seen: string }[] }[];
}

export interface TopicView {
  topic: string;
  /** Entries not yet delivered, or delivered and not yet acknowledged. */
  backlog: number;
  /** Delivered and not yet acknowledged. */
  pending: number;
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
  failed_at: string;
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
  refused: ReplayRefusal[];
}

/** The `dead-letter` live event. */
export interface DeadLetterEvent {
  topic: string;
  id: string;
  code: string;
}
