/** Executions in the store: status, the xstate snapshot, the log (draft while running, final once ended). */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../platform/sqlite/migrations.js';

export const executionsMigration: Migration = {
  id: 'executor.1',
  up(db) {
    db.exec(`CREATE TABLE executions (
      id TEXT PRIMARY KEY, request_id TEXT NOT NULL, recipe TEXT NOT NULL, recipe_hash TEXT NOT NULL,
      state TEXT NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL, snapshot TEXT NOT NULL, log TEXT NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, ended_at INTEGER)`);
    db.exec('CREATE INDEX executions_open ON executions (ended_at) WHERE ended_at IS NULL');
  },
};

export interface ExecutionRow {
  id: string;
  requestId: string;
  recipe: string;
  recipeHash: string;
  state: string;
  seq: number;
  status: unknown;
  snapshot: unknown;
  log: unknown;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

interface RawRow {
  id: string;
  request_id: string;
  recipe: string;
  recipe_hash: string;
  state: string;
  seq: number;
  status: string;
  snapshot: string;
  log: string;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

function fromRaw(r: RawRow): ExecutionRow {
  return {
    id: r.id,
    requestId: r.request_id,
    recipe: r.recipe,
    recipeHash: r.recipe_hash,
    state: r.state,
    seq: r.seq,
    status: JSON.parse(r.status),
    snapshot: JSON.parse(r.snapshot),
    log: JSON.parse(r.log),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    endedAt: r.ended_at,
  };
}

export class ExecutionRepo {
  private readonly stmts;

  constructor(db: Database) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO executions (id, request_id, recipe, recipe_hash, state, seq, status, snapshot, log, created_at, updated_at, ended_at)
         VALUES (@id, @requestId, @recipe, @recipeHash, @state, @seq, @status, @snapshot, @log, @createdAt, @updatedAt, @endedAt)`,
      ),
      update: db.prepare(
        'UPDATE executions SET state = @state, seq = @seq, status = @status, snapshot = @snapshot, log = @log, updated_at = @updatedAt, ended_at = @endedAt WHERE id = @id',
      ),
      get: db.prepare('SELECT * FROM executions WHERE id = ?'),
      open: db.prepare('SELECT * FROM executions WHERE ended_at IS NULL ORDER BY created_at'),
    };
  }

  private params(row: ExecutionRow) {
    return { ...row, status: JSON.stringify(row.status), snapshot: JSON.stringify(row.snapshot), log: JSON.stringify(row.log) };
  }

  insert(row: ExecutionRow): void {
    this.stmts.insert.run(this.params(row));
  }

  update(row: ExecutionRow): void {
    const p = this.params(row);
    this.stmts.update.run({
      id: p.id,
      state: p.state,
      seq: p.seq,
      status: p.status,
      snapshot: p.snapshot,
      log: p.log,
      updatedAt: p.updatedAt,
      endedAt: p.endedAt,
    });
  }

  get(id: string): ExecutionRow | undefined {
    const r = this.stmts.get.get(id) as RawRow | undefined;
    return r ? fromRaw(r) : undefined;
  }

  /** Executions that have not ended (after a crash: the ones to stop). */
  open(): ExecutionRow[] {
    return (this.stmts.open.all() as RawRow[]).map(fromRaw);
  }
}
