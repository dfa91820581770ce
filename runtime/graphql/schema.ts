/**
 * The hub's GraphQL schema (`/svc/v1/graphql`), written from the spec (§4.6: `search`, `taskUpdated`) and the
 * reference draft. Field and value names follow the hub's REST documents (lower-case states such as
 * `input_required`), so a client reads the same values over every transport; each object also offers its
 * REST document whole as `document: JSON`. Scopes are those of REST (runtime/graphql/scopes.ts).
 */
import { SEARCH_QUERY_FIELD, SEARCH_SDL } from '../../services/index/search/graphql-search.js';

export const HUB_SCHEMA = `${SEARCH_SDL}
"Any JSON value (a document as the hub's REST API answers it)."
scalar JSON

enum SessionState { draft planned awaiting_ingredients awaiting_confirmation running paused completed aborted failed }
enum SessionMode { guided assisted autonomous }
enum TaskState { submitted working input_required auth_required completed failed canceled rejected }
enum TaskKind { confirm_session cooking_check team_step }
enum ActorKind { human agent device }
enum TaskAnswerValue { yes no }

type Actor { id: ID! kind: ActorKind! }

type SessionRecipe { recipeId: ID! servings: Float! hash: String! executionId: ID execution: ExecutionSummary }
type ExecutionSummary { state: String! outcome: String }
type Confirmation {
  requiredRules: [String!]!
  acknowledgedRules: [String!]!
  preparedBy: Actor
  preparedAt: String
  confirmedBy: Actor
  confirmedAt: String
}
type SessionEnd { reason: String! by: Actor at: String! }
type SessionFailure { reason: String! detail: String! at: String! }

type Session {
  id: ID!
  state: SessionState!
  mode: SessionMode!
  serveAt: String!
  recipes: [SessionRecipe!]!
  createdBy: Actor!
  createdAt: String!
  updatedAt: String!
  confirmation: Confirmation!
  "Index of the recipe being cooked while running or paused."
  current: Int
  startedBy: Actor
  abort: SessionEnd
  failure: SessionFailure
  "The session's tasks (scope read)."
  tasks: [Task!]!
  document: JSON!
}

type TaskAnswerRecord { value: String! by: Actor! at: String! }

type Task {
  id: ID!
  sessionId: ID!
  "The task's session (scope read)."
  session: Session
  kind: TaskKind!
  state: TaskState!
  assignee: Actor!
  "The message in lang, else English, else the first language it has."
  message(lang: String = "en"): String!
  "The message in every language it has."
  messages: JSON!
  rules: [String!]
  executionId: ID
  answer: TaskAnswerRecord
  createdAt: String!
  updatedAt: String!
  document: JSON!
}

type InventoryItem { id: ID! name: String! quantity: Float! unit: String! expires: String updatedAt: String! }
type Inventory { items: [InventoryItem!]! expiringSoon: [ID!]! }

type OrderLine { item: String! quantity: Float! unit: String! note: String }
type OrderIntent {
  id: ID!
  state: String!
  lines: [OrderLine!]!
  note: String
  createdBy: Actor!
  createdAt: String!
  approvedBy: Actor
  approvedAt: String
  "The provider named when the order was created, if any."
  provider: String
  "The estimated total named when the order was created, if any."
  estimatedTotal: Money
  "The mandate the order was made under: {principal, hash}, when an agent acted under one."
  mandate: JSON
  document: JSON!
}

type Money { amount: Float! currency: String! }

type Execution {
  id: ID!
  state: String!
  seq: Int!
  updatedAt: String!
  step: JSON
  eta: String
  refusal: JSON
  humanNeeded: JSON
  document: JSON!
}

type HeaterPower { id: ID! power: Float! }
type SafetyStatus { latched: Boolean! trip: JSON hint: String heaters: [HeaterPower!]! }

type ExecutorStatus {
  "What the executor cooks now, if anything."
  activeExecution: Execution
  "The presence sensor's reading."
  humanPresent: Boolean!
  safety: SafetyStatus!
}

type ConfirmResult { session: Session! completed: Boolean! task: Task }
type Mode { mode: String! setAt: String }
type EmergencyStopResult {
  accepted: Boolean!
  action: String!
  reason: String
  warnings: [String!]
  safety: SafetyStatus!
  trip: JSON
}

type SafetyEvent { kind: String! action: String! message: String! at: String! executionId: ID sessionId: ID by: String trip: JSON }
type ExecutionEvent { executionId: ID! state: String! seq: Int! outcome: String at: String! sessionId: ID }

input SessionRecipeInput { recipeId: ID! servings: Float }
input CreateSessionInput { recipes: [SessionRecipeInput!]! serveAt: String! mode: SessionMode! }
input InventoryItemInput { id: ID name: String! quantity: Float! unit: String! expires: String }
input OrderLineInput { item: String! quantity: Float! unit: String! note: String }
input MoneyInput { amount: Float! currency: String! }

# Root fields are nullable: a field the token may not read is null with its error, the others still answer.
type Query {${SEARCH_QUERY_FIELD}
  "One session (read)."
  session(id: ID!): Session
  "Every session (read)."
  sessions: [Session!]
  "Tasks of one session, or of every session (read)."
  tasks(sessionId: ID): [Task!]
  "One task (read)."
  task(id: ID!): Task
  "The kitchen inventory (read)."
  inventory: Inventory
  "Order intents, newest first (read)."
  orders: [OrderIntent!]
  "One order intent (read)."
  order(id: ID!): OrderIntent
  "The executor: what it cooks now, presence, safety state (read)."
  executor: ExecutorStatus
  "One execution's status (read)."
  execution(id: ID!): Execution
  "The safety state: latched stop, trip, heaters (read)."
  safetyStatus: SafetyStatus
  "The hub's operating mode (read)."
  mode: Mode
}

type Mutation {
  "Create a session, planned; a person confirms it before it starts (cook)."
  createSession(input: CreateSessionInput!): Session!
  "Confirm a session: a person's token completes it, an agent's only prepares it (cook)."
  confirmSession(id: ID!, acknowledgedRules: [String!]!): ConfirmResult!
  "Start a confirmed session: recall check, sensed presence, dry run (cook)."
  startSession(id: ID!): Session!
  "Pause a running session: heat off, the step waits (cook)."
  pauseSession(id: ID!): Session!
  "Resume a paused session (cook)."
  resumeSession(id: ID!): Session!
  "Abort a session: its execution stops and heat is cut (cook)."
  abortSession(id: ID!, reason: String): Session!
  "Answer a task: a confirmation (a person's token) or a cooking check (cook)."
  respondToTask(id: ID!, answer: TaskAnswerValue!, acknowledgedRules: [String!], note: String): Task!
  "Add, change or remove inventory items (inventory)."
  updateInventory(upsert: [InventoryItemInput!], remove: [ID!]): Inventory!
  "Create an order intent, awaiting a person's approval (order:create). A mandate (a signed AgentMandate) is verified in full, as over REST and MCP."
  createOrderIntent(lines: [OrderLineInput!]!, note: String, provider: String, estimatedTotal: MoneyInput, mandate: JSON): OrderIntent!
  "Emergency stop: cut heat everywhere now. Any paired token; never refused for its scopes or its reason."
  emergencyStop(reason: String): EmergencyStopResult!
}

type Subscription {
  "Every change of a task of this session (read)."
  taskUpdated(sessionId: ID!): Task!
  "Every change of this session (read)."
  sessionUpdated(id: ID!): Session!
  "Execution state changes, of one execution or session or all (read)."
  executionUpdated(executionId: ID, sessionId: ID): ExecutionEvent!
  "Safety events (trips, emergency stops, resets): any paired token."
  safetyEvents: SafetyEvent!
}
`;
