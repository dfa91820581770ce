/**
 * The registry's PostgreSQL schema. The spec's rules live in the database, so that any number of registry
 * processes sharing it keep them: a (name, version) pair is unique (a constraint: of two processes publishing
 * the same version at once, one insert wins and the other finds the pair taken); a published entry is
 * immutable except for its status (a trigger refuses any other change, and any deletion: a deleted entry is a
 * tombstone); the stored document agrees with its columns (check constraints); signed recalls are never
 * rewritten; and every change bumps one revision counter, which the published documents are cached by.
 */
import { pgIdempotencyMigration } from '../../../platform/http/idempotency-postgres.js';
import { PgMigrationRegistry } from '../../../platform/postgres/migrations.js';

export const registryPgMigrations = new PgMigrationRegistry().add(pgIdempotencyMigration, {
  id: 'registry.pg.1',
  sql: `
    CREATE TABLE registry_entries (
      seq BIGSERIAL PRIMARY KEY,
      name TEXT NOT NULL, version TEXT NOT NULL, namespace TEXT NOT NULL,
      kind TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('active', 'deprecated', 'recalled', 'deleted')),
      words TSVECTOR NOT NULL, doc TEXT NOT NULL,
      CONSTRAINT registry_entries_name_version UNIQUE (name, version),
      CONSTRAINT registry_entries_doc_agrees CHECK (
        (doc::jsonb ->> 'name') = name AND (doc::jsonb ->> 'version') = version AND
        (doc::jsonb ->> 'status') = status AND (doc::jsonb ->> 'kind') = kind));
    CREATE INDEX registry_entries_kind ON registry_entries (kind, seq);
    CREATE INDEX registry_entries_status ON registry_entries (status, seq);
    CREATE INDEX registry_entries_words ON registry_entries USING GIN (words);

    CREATE FUNCTION registry_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION 'registry entries are never removed; deleting one is a status change (a tombstone)'
          USING ERRCODE = 'integrity_constraint_violation';
      END IF;
      IF NEW.seq <> OLD.seq OR NEW.name <> OLD.name OR NEW.version <> OLD.version OR NEW.kind <> OLD.kind
         OR NEW.namespace <> OLD.namespace OR NEW.words <> OLD.words
         OR (NEW.doc::jsonb - 'status' - 'x-status') IS DISTINCT FROM (OLD.doc::jsonb - 'status' - 'x-status') THEN
        RAISE EXCEPTION 'registry entry % % is published and immutable: only its status may change', OLD.name, OLD.version
          USING ERRCODE = 'integrity_constraint_violation';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER registry_entries_immutable BEFORE UPDATE OR DELETE ON registry_entries
      FOR EACH ROW EXECUTE FUNCTION registry_entries_immutable();
    CREATE TRIGGER registry_entries_no_truncate BEFORE TRUNCATE ON registry_entries
      FOR EACH STATEMENT EXECUTE FUNCTION registry_entries_immutable();

    CREATE TABLE registry_directory (id TEXT PRIMARY KEY, seq BIGSERIAL NOT NULL, doc TEXT NOT NULL);

    CREATE TABLE registry_recalls (seq BIGINT PRIMARY KEY CHECK (seq > 0), doc TEXT NOT NULL);
    CREATE FUNCTION registry_recalls_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'a signed recall is never changed or removed' USING ERRCODE = 'integrity_constraint_violation';
    END $$;
    CREATE TRIGGER registry_recalls_immutable BEFORE UPDATE OR DELETE ON registry_recalls
      FOR EACH ROW EXECUTE FUNCTION registry_recalls_immutable();

    CREATE TABLE registry_challenges (
      n BIGSERIAL, id TEXT PRIMARY KEY, namespace TEXT NOT NULL, method TEXT NOT NULL, doc TEXT NOT NULL,
      used BOOLEAN NOT NULL DEFAULT false, created BIGINT NOT NULL);
    CREATE INDEX registry_challenges_ns ON registry_challenges (namespace, method, used);
    CREATE TABLE registry_proofs (namespace TEXT PRIMARY KEY, method TEXT NOT NULL, verified_at TEXT NOT NULL);
    CREATE TABLE registry_tokens (
      id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, namespaces TEXT NOT NULL, admin BOOLEAN NOT NULL,
      created_at TEXT NOT NULL, revoked_at TEXT);

    CREATE TABLE registry_revision (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), rev BIGINT NOT NULL);
    INSERT INTO registry_revision (one, rev) VALUES (true, 0);
    CREATE FUNCTION registry_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE registry_revision SET rev = rev + 1;
      RETURN NULL;
    END $$;
    CREATE TRIGGER registry_entries_revision AFTER INSERT OR UPDATE ON registry_entries
      FOR EACH STATEMENT EXECUTE FUNCTION registry_bump_revision();
    CREATE TRIGGER registry_directory_revision AFTER INSERT OR UPDATE ON registry_directory
      FOR EACH STATEMENT EXECUTE FUNCTION registry_bump_revision();
    CREATE TRIGGER registry_recalls_revision AFTER INSERT ON registry_recalls
      FOR EACH STATEMENT EXECUTE FUNCTION registry_bump_revision();
  `,
});
