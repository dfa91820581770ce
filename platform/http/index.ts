/** The platform HTTP kit: see ../README.md. */
export { createHttpApp, type HttpAppOptions } from './app.js';
export {
  installBearerAuth,
  type Principal,
  type PrincipalKind,
  type TokenInfo,
  TokenStore,
  tokenGrantsMigration,
  tokensMigration,
} from './auth.js';
export {
  bodyHash,
  IdempotencyStore,
  idempotencyMigration,
  installIdempotency,
  MIN_RETENTION_MS,
  parseIdempotencyKey,
} from './idempotency.js';
export { DEFAULT_BODY_LIMIT, installJsonParser } from './json.js';
export { type BaseUrl, installProblems, PROBLEM_JSON, ProblemError, problemForError, sendProblem } from './problems.js';
export { createValidatorCompiler, type ValidationItem, validationErrors } from './validation.js';
