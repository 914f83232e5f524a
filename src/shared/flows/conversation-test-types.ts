/**
 * Conversation tests (docs/flows.md, "Conversation tests"): a named script of what a user says
 * and presses, with what the bot must answer at each step, and stand-ins for the flow's HTTP,
 * knowledge and LLM steps. The api stores them and asks for runs; flow runs them on its engine
 * (`src/flow/conversation-tests/`). `schemas/http/conversation-test.json` is the same shape.
 */
/** One check of a step's replies or of the conversation after the step. */
export type Expectation =
  | { text_equals: string; reply?: number }
  | { text_contains: string; reply?: number }
  | { text_matches: string; reply?: number }
  /** The titles of the options offered, in order (the last reply that offers any, or `reply`). */
  | { buttons: string[]; reply?: number }
  | { state: string }
  | { variable: string; equals: unknown }
  | { handoff: boolean }
  | { ended: boolean }
  | { replies: number };

export type TestStep = ({ say: string } | { press: string }) & { expect?: Expectation[] };

export interface HttpStandIn {
  /** Any method when absent. */
  method?: string;
  /** The URL called; `*` stands for any characters. */
  url: string;
  /** @defaultValue 200 */
  status?: number;
  body?: unknown;
}

export interface KnowledgeStandIn {
  /** Any collection when absent. */
  collection?: string;
  /** Matches a question holding these words (any case); any question when absent. */
  question_contains?: string;
  answer: string;
  /** @defaultValue true */
  found?: boolean;
}

export interface LlmStandIn {
  /** Matches a call whose prompt holds this text (any case); any call when absent. */
  prompt_contains?: string;
  /** The answer: text, or the JSON a `json` output asks for. */
  answer: unknown;
}

export interface StandIns {
  http?: HttpStandIn[];
  knowledge?: KnowledgeStandIn[];
  llm?: LlmStandIn[];
}

/** A test as stored and written: its name is its key within its bot. */
export interface ConversationTest {
  name: string;
  description?: string;
  /** Variables the conversation starts with. */
  variables?: Record<string, unknown>;
  stand_ins?: StandIns;
  steps: TestStep[];
}

/** A reply as a test sees it: its text (an image's caption), and the options it offers. */
export interface Reply {
  message_type: string;
  text: string;
  options: { id: string; title: string }[];
}

/** What one step did: the bot's replies, and where the conversation was after it. */
export interface StepOutcome {
  input: { say: string } | { press: string };
  replies: Reply[];
  state: string | null;
  variables: Record<string, unknown>;
  handoff: boolean;
  ended: boolean;
}

export interface TestFailure {
  /** The step (0-based) whose expectation failed, or whose run failed. */
  step: number;
  /** The expectation's index in the step's `expect`; absent when the run itself failed. */
  expectation?: number;
  /** `steps[1].expect[0] text_equals "…"`: what failed, as written in the test. */
  where: string;
  message: string;
}

export interface TestResult {
  name: string;
  passed: boolean;
  duration_ms: number;
  failures: TestFailure[];
  steps: StepOutcome[];
}

/** What a run is given: the flow to run, the bot's settings the engine reads, and the tests. */
export interface TestRunRequest {
  app_id: string;
  flow: Record<string, unknown>;
  handoff_keywords: string[];
  tests: ConversationTest[];
}

export interface TestRunResult {
  passed: number;
  failed: number;
  duration_ms: number;
  tests: TestResult[];
}
