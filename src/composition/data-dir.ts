import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from 'mongodb';
import type { Config } from '../config.js';
import { createPrivately, LOCK_WAIT_MS, openSqlite, useWal } from '../adapters/sqlite/open.js';
import { Refusal } from '../shared/refusal.js';
import {
  decryptSecret,
  encryptSecret,
  KEY_FILE_NAME,
  parseKeyFromConfig,
  readKeyFile,
  SecretBoxError,
} from '../webhooks/secret-box.js';
import { newSigningSecret } from '../webhooks/signing.js';

/**
 * DATA_DIR safety at start (docs/operations.md, "The data directory"):
 *
 * - Identity. When both embedded stores are used, events.db and service.db each keep the id of the
 *   data directory they belong to (table `data_directory`, one row), made when the directory is
 *   first used. An event log that is missing, empty, without an id or with another id under a
 *   service.db that has lived, or a missing service.db beside a log that has lived, is refused:
 *   starting would quietly serve an empty log (every order and idempotency key gone) or no partners.
 *   Directories from before the id get one on their first start, unless their log is already gone.
 * - Integrity: `PRAGMA quick_check` of each SQLite file the server opens.
 * - The webhook secrets key must open the stored signing secrets.
 * - Modes: the directory is made 0700, its files 0600.
 *
 * Ordering, so that processes starting together on a new directory agree without a lock: a first
 * start writes service.db (the file), then the id into events.db, then into service.db; a check
 * reads service.db before it looks at events.db. So whoever sees service.db's id or partners also
 * sees events.db's id.
 */

export const EVENTS_FILE = 'events.db';
export const SERVICE_FILE = 'service.db';

const IDENTITY_TABLE = `
CREATE TABLE IF NOT EXISTS data_directory (
  slot       INTEGER PRIMARY KEY CHECK (slot = 1),
  id         TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`;

/** Files the service makes under DATA_DIR; existing ones of ours are tightened to owner-only. */
const PRIVATE_FILES = [...[EVENTS_FILE, SERVICE_FILE].flatMap((f) => [f, `${f}-wal`, `${f}-shm`]), KEY_FILE_NAME];

/**
 * A refusal for the directory's identity (a lost, foreign or mismatched file), not for damage or
 * a key: read-only CLI diagnostics may still read the event log that is there.
 */
export class IdentityRefusal extends Refusal {
  override readonly name: string = 'IdentityRefusal';
}

const ADOPT = 'the CLI command `data-dir adopt --yes`';
const RESEAL = 'the CLI command `data-dir reseal-webhook-secrets --yes`';

/**
 * Creates DATA_DIR with mode 0700 when missing (an existing directory keeps its mode), and takes
 * group and other access away from the service's files in it that this user owns (older versions
 * made them 0644). New SQLite files are created 0600 (createPrivately). A directory or file this
 * user cannot use is refused here, naming it, before anything opens it: SQLite would open a
 * read-only database read-only and fail at the first write.
 */
export function prepareDataDir(dir: string): void {
  usable(`DATA_DIR ${dir}`, () => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Files are made in it, SQLite's -wal and -shm beside each database.
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  });
  const uid = process.getuid?.();
  for (const name of PRIVATE_FILES) {
    const file = path.join(dir, name);
    usable(file, () => {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (!stat) return;
      if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
      if (stat.uid === uid && (stat.mode & 0o077) !== 0) fs.chmodSync(file, stat.mode & 0o700);
    });
  }
}

/** Faults only the operator can fix: permissions, a read-only filesystem, a file where a directory should be. */
const ACCESS_FAULTS = new Set(['EACCES', 'EPERM', 'EROFS', 'EEXIST', 'ENOTDIR', 'EISDIR']);

/** Runs `check`; an access fault becomes a Refusal naming `what` (one line, no stack). */
function usable(what: string, check: () => void): void {
  try {
    check();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !ACCESS_FAULTS.has(code)) throw err;
    throw new Refusal(
      `${what} cannot be used (${failureText(err)}): DATA_DIR must be a directory this user can read and write.`,
    );
  }
}

/** An error in one line: its code, then its message (a Node error's message starts with its code). */
function failureText(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' && !message.startsWith(code) ? `${code}: ${message}` : message;
}

export interface EmbeddedFiles {
  /** service.db, open, when READ_STORE=embedded. */
  service?: Database.Database;
}

/**
 * Checks and opens the embedded files before the event store opens events.db (which creates it):
 * service.db when READ_STORE=embedded (returned open), events.db when EVENT_STORE=embedded
 * (checked, then closed). `integrity`: quick_check each file (the server; the CLI skips the scan).
 * Throws Refusal.
 */
export function openEmbeddedFiles(config: Config, options: { integrity: boolean }): EmbeddedFiles {
  const dir = config.dataDir;
  const serviceFile = path.join(dir, SERVICE_FILE);
  const eventsFile = path.join(dir, EVENTS_FILE);
  const withService = config.READ_STORE === 'embedded';
  const withEvents = config.EVENT_STORE === 'embedded';
  const identity = withService && withEvents;
  let checked = false;

  // A lost service.db beside a log that has lived: refused before service.db is created again.
  if (identity && isEmpty(serviceFile) && !isEmpty(eventsFile)) {
    withDb(openLog(eventsFile), (log) => {
      if (options.integrity) quickCheck(log, eventsFile);
      checked = options.integrity;
      const id = readId(log);
      // Re-checked: a process making this directory at this moment has created service.db before the log's id.
      if ((id !== null || hasRows(log, 'events')) && isEmpty(serviceFile)) throw serviceLost(serviceFile, id);
    });
  }

  const service = withService
    ? opened(serviceFile, () => openSqlite(serviceFile, config.SQLITE_SYNCHRONOUS))
    : undefined;
  try {
    if (service && options.integrity) quickCheck(service, serviceFile);
    if (!withEvents) return { ...(service ? { service } : {}) };
    if (!identity) {
      if (options.integrity) withDb(openLog(eventsFile), (log) => quickCheck(log, eventsFile));
      return { ...(service ? { service } : {}) };
    }
    service!.exec(IDENTITY_TABLE);
    const serviceId = readId(service!);
    const lived = [
      ...(serviceId ? [`service.db belongs to data directory ${serviceId}`] : []),
      // The key file alone is no sign of life: with no sealed secret in service.db it guards nothing
      // (a reset that keeps it, or a key placed before the first start).
      ...(hasRows(service!, 'partners') || hasRows(service!, 'webhook_endpoints')
        ? ['service.db has partners or webhook endpoints']
        : []),
    ];
    // After service.db (see the ordering above).
    if (isEmpty(eventsFile) && lived.length > 0) throw logLost(eventsFile, lived);

    withDb(openLog(eventsFile), (log) => {
      if (options.integrity && !checked) quickCheck(log, eventsFile);
      log.exec(IDENTITY_TABLE);
      let logId = readId(log);
      if (logId === null) {
        if (serviceId !== null) throw logForeign(eventsFile, serviceId);
        logId = claimId(log, randomUUID());
      }
      const claimed = serviceId ?? claimId(service!, logId);
      if (claimed !== logId) throw mismatch(eventsFile, logId, claimed);
    });
    return { service: service! };
  } catch (err) {
    service?.close();
    throw err;
  }
}

/**
 * `data-dir adopt`: makes events.db and service.db, as they are, one data directory (the log's id,
 * or a new one), after the operator has accepted what a refusal said was lost. Returns the id.
 */
export function adoptDataDir(config: Config): string {
  prepareDataDir(config.dataDir);
  const service = opened(path.join(config.dataDir, SERVICE_FILE), () =>
    openSqlite(path.join(config.dataDir, SERVICE_FILE), config.SQLITE_SYNCHRONOUS),
  );
  try {
    return withDb(openLog(path.join(config.dataDir, EVENTS_FILE)), (log) => {
      log.exec(IDENTITY_TABLE);
      service.exec(IDENTITY_TABLE);
      const id = claimId(log, randomUUID());
      service
        .prepare('INSERT OR REPLACE INTO data_directory (slot, id, created_at) VALUES (1, ?, ?)')
        .run(id, new Date().toISOString());
      return id;
    });
  } finally {
    service.close();
  }
}

export interface Backup {
  /** The files written, by name, with their sizes in bytes. */
  files: Array<{ name: string; bytes: number }>;
  /** Events in the copied log. */
  events: number;
}

/**
 * `data-dir backup`: a copy of the embedded files that a service can start on, taken while the
 * service runs. A plain copy of a running directory can catch a page half-written; `VACUUM INTO`
 * writes each database as one read transaction sees it.
 * The log is copied first and service.db after it, so every partner an order of the copy names is
 * in the copy. Each copy is checked (quick_check) before it takes its final name. Throws Refusal.
 */
export function backupDataDir(config: Config, dest: string): Backup {
  const dir = config.dataDir;
  for (const name of [EVENTS_FILE, SERVICE_FILE]) {
    let empty = true;
    usable(`DATA_DIR ${dir}`, () => void (empty = isEmpty(path.join(dir, name))));
    if (empty)
      throw new Refusal(`${path.join(dir, name)} is missing or empty: ${dir} holds no data directory to back up.`);
  }
  // lstat: a dangling symlink is there too.
  if (fs.lstatSync(dest, { throwIfNoEntry: false }))
    throw new Refusal(`${dest} already exists: a backup goes into a new directory.`);
  let made: string | undefined;
  try {
    made = fs.mkdirSync(dest, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new Refusal(`${dest} cannot be made (${(err as Error).message}).`);
  }
  try {
    return copyInto(dir, dest);
  } catch (err) {
    // Half a backup would pass for a whole one; the directories made for it go too.
    fs.rmSync(made ?? dest, { recursive: true, force: true });
    if (err instanceof Refusal) throw err;
    throw new Refusal(`the backup failed (${failureText(err)}); nothing of it is kept.`);
  }
}

function copyInto(dir: string, dest: string): Backup {
  let events = 0;
  const files: Backup['files'] = [];
  for (const name of [EVENTS_FILE, SERVICE_FILE]) {
    const partial = path.join(dest, `${name}.partial`);
    const source = path.join(dir, name);
    try {
      withDb(new Database(source, { readonly: true, fileMustExist: true, timeout: LOCK_WAIT_MS }), (db) =>
        db.prepare('VACUUM INTO ?').run(partial),
      );
    } catch (err) {
      throw new Refusal(`${source} could not be copied (${failureText(err)}); nothing of the backup is kept.`);
    }
    withDb(new Database(partial, { readonly: true, fileMustExist: true }), (copy) => {
      quickCheck(copy, partial);
      if (name === EVENTS_FILE) events = copy.prepare('SELECT count(*) FROM events').pluck().get() as number;
    });
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, path.join(dest, name));
    files.push({ name, bytes: fs.statSync(path.join(dest, name)).size });
  }
  const key = path.join(dir, KEY_FILE_NAME);
  if (fs.existsSync(key)) {
    fs.copyFileSync(key, path.join(dest, KEY_FILE_NAME), fs.constants.COPYFILE_EXCL);
    fs.chmodSync(path.join(dest, KEY_FILE_NAME), 0o600);
    files.push({ name: KEY_FILE_NAME, bytes: fs.statSync(key).size });
  }
  for (const file of [...files.map((f) => path.join(dest, f.name)), dest]) {
    const fd = fs.openSync(file, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  return { files, events };
}

/**
 * The configured key (WEBHOOK_SECRETS_KEY or the key file) must open the stored signing secrets;
 * otherwise a new key file would be made, or the wrong key used, and every delivery would wait
 * forever on a secret nobody can open. `sealed`: one stored secret (the newest), null when none.
 */
export function checkWebhookKey(config: Config, sealed: string | null): void {
  if (sealed === null) return;
  const keyFile = path.join(config.dataDir, KEY_FILE_NAME);
  let key: Buffer | null;
  try {
    key = config.WEBHOOK_SECRETS_KEY ? parseKeyFromConfig(config.WEBHOOK_SECRETS_KEY) : readKeyFile(config.dataDir);
  } catch (err) {
    if (err instanceof SecretBoxError) throw new Refusal(err.message);
    throw err;
  }
  if (key === null) {
    throw new Refusal(
      `${keyFile} is missing, but webhook endpoints hold signing secrets sealed with it (a new key would open none of them). ` +
        `Restore ${KEY_FILE_NAME} from a backup of DATA_DIR, or set WEBHOOK_SECRETS_KEY to that key; if it is lost for good, run ${RESEAL} to give every endpoint a new secret.`,
    );
  }
  try {
    decryptSecret(sealed, key);
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    const source = config.WEBHOOK_SECRETS_KEY ? 'WEBHOOK_SECRETS_KEY' : keyFile;
    const fix = config.WEBHOOK_SECRETS_KEY
      ? 'Set WEBHOOK_SECRETS_KEY to the key they were sealed with'
      : `Restore ${KEY_FILE_NAME} from a backup of DATA_DIR`;
    throw new Refusal(
      `${source} does not open the stored webhook signing secrets: they were sealed with another key. ${fix}; if that key is lost for good, run ${RESEAL} to give every endpoint a new secret.`,
    );
  }
}

// The stores' own tables and collections (src/adapters/*/webhook-endpoint-store.ts).
const ENDPOINTS = 'webhook_endpoints';

/** The newest stored signing secret, sealed; null when no endpoint has one. */
export async function newestSealedSecret(from: { sqlite?: Database.Database; mongo?: Db }): Promise<string | null> {
  if (from.mongo) {
    const doc = await from.mongo
      .collection<{ secret_box: string }>(ENDPOINTS)
      .findOne({}, { projection: { secret_box: 1 }, sort: { updated_at: -1 } });
    return doc?.secret_box ?? null;
  }
  if (!from.sqlite || !hasTable(from.sqlite, ENDPOINTS)) return null;
  const row = from.sqlite
    .prepare<[], { secret_box: string }>(`SELECT secret_box FROM ${ENDPOINTS} ORDER BY updated_at DESC LIMIT 1`)
    .get();
  return row?.secret_box ?? null;
}

/**
 * `data-dir reseal-webhook-secrets`: after the key is lost for good, each endpoint whose current
 * secret `key` does not open gets a new signing secret sealed with it (the previous one is dropped:
 * nobody can open it). Endpoints whose current secret it opens keep it, so their partners' checks go
 * on passing; a previous secret it does not open (keys mixed across hosts, then a rotation) is
 * dropped, since every attempt would fail on it until it expires (`previousDropped`). Partners see a
 * new secret only through rotate-secret; until then their verification fails.
 */
export async function resealWebhookSecrets(
  from: { sqlite?: Database.Database; mongo?: Db },
  key: Buffer,
  now: Date,
): Promise<{ resealed: ResealedEndpoint[]; previousDropped: ResealedEndpoint[]; kept: number }> {
  const updatedAt = now.toISOString();
  const fresh = () => {
    const secret = newSigningSecret();
    return {
      secret_box: encryptSecret(secret, key),
      secret_hint: secret.slice(-4),
      previous_secret_box: null,
      previous_secret_expires_at: null,
      updated_at: updatedAt,
    };
  };
  const noPrevious = { previous_secret_box: null, previous_secret_expires_at: null, updated_at: updatedAt };
  const opens = (sealed: string | null) => {
    if (sealed === null) return true;
    try {
      decryptSecret(sealed, key);
      return true;
    } catch (err) {
      if (err instanceof SecretBoxError) return false;
      throw err;
    }
  };
  const who = ({ partner_id, environment }: SealedEndpoint): ResealedEndpoint => ({ partner_id, environment });
  const resealed: ResealedEndpoint[] = [];
  const previousDropped: ResealedEndpoint[] = [];
  let kept = 0;
  /** What the endpoint needs: a new secret, its previous one dropped, or nothing. */
  const needs = (e: SealedEndpoint): 'reseal' | 'drop-previous' | 'nothing' => {
    if (!opens(e.secret_box)) return 'reseal';
    kept++;
    return opens(e.previous_secret_box) ? 'nothing' : 'drop-previous';
  };
  if (from.mongo) {
    const endpoints = from.mongo.collection<SealedEndpoint & { _id: string; version: number }>(ENDPOINTS);
    for await (const doc of endpoints.find({})) {
      const need = needs(doc);
      if (need === 'nothing') continue;
      await endpoints.updateOne(
        { _id: doc._id },
        { $set: need === 'reseal' ? fresh() : noPrevious, $inc: { version: 1 } },
      );
      (need === 'reseal' ? resealed : previousDropped).push(who(doc));
    }
    return { resealed, previousDropped, kept };
  }
  const db = from.sqlite;
  if (!db || !hasTable(db, ENDPOINTS)) return { resealed, previousDropped, kept };
  const update = db.prepare(
    `UPDATE ${ENDPOINTS} SET secret_box = @secret_box, secret_hint = @secret_hint, previous_secret_box = @previous_secret_box,
       previous_secret_expires_at = @previous_secret_expires_at, updated_at = @updated_at, version = version + 1
     WHERE partner_id = @partner_id AND environment = @environment`,
  );
  const dropPrevious = db.prepare(
    `UPDATE ${ENDPOINTS} SET previous_secret_box = NULL, previous_secret_expires_at = NULL, updated_at = ?, version = version + 1
     WHERE partner_id = ? AND environment = ?`,
  );
  db.transaction(() => {
    const rows = db
      .prepare<[], SealedEndpoint>(
        `SELECT partner_id, environment, secret_box, previous_secret_box FROM ${ENDPOINTS} ORDER BY partner_id, environment`,
      )
      .all();
    for (const row of rows) {
      const need = needs(row);
      if (need === 'reseal') {
        update.run({ ...who(row), ...fresh() });
        resealed.push(who(row));
      } else if (need === 'drop-previous') {
        dropPrevious.run(updatedAt, row.partner_id, row.environment);
        previousDropped.push(who(row));
      }
    }
  })();
  return { resealed, previousDropped, kept };
}

interface ResealedEndpoint {
  partner_id: string;
  environment: string;
}

interface SealedEndpoint extends ResealedEndpoint {
  secret_box: string;
  previous_secret_box: string | null;
}

function logLost(file: string, lived: string[]): Refusal {
  return new IdentityRefusal(
    `${file} is missing or empty, but this data directory has been in use (${lived.join('; ')}): starting would serve no orders and forget ` +
      `every idempotency key. Restore events.db from a backup of DATA_DIR (the CLI command data-dir backup makes one), deleting any events.db-wal and events.db-shm left; if the event log is lost for good, run ${ADOPT} to start over with an empty log.`,
  );
}

function logForeign(file: string, serviceId: string): Refusal {
  return new IdentityRefusal(
    `${file} is not this data directory's event log: service.db belongs to data directory ${serviceId} and the log carries no id ` +
      `(another directory's log, or a backup older than the id). Put this directory's events.db back from a backup of DATA_DIR; to keep this log instead, run ${ADOPT}.`,
  );
}

function mismatch(file: string, logId: string, serviceId: string): Refusal {
  return new IdentityRefusal(
    `${file} belongs to data directory ${logId} but service.db to ${serviceId}: the two files come from different directories. ` +
      `Put back the matching file from a backup of DATA_DIR; to make these two files one directory, run ${ADOPT}.`,
  );
}

function serviceLost(file: string, logId: string | null): Refusal {
  return new IdentityRefusal(
    `${file} is missing or empty, but events.db holds the event log of ${logId ? `data directory ${logId}` : 'this directory'}: starting would serve ` +
      `no partners, keys, catalog or webhook endpoints. Restore service.db from a backup of DATA_DIR, deleting any service.db-wal and service.db-shm left; to keep the log with an empty service.db, run ${ADOPT}.`,
  );
}

function corrupted(file: string, detail: string): Refusal {
  // quick_check reports on several lines; a refusal is one.
  const what = detail.replace(/\s*\n\s*/g, ' ');
  return new Refusal(
    `${file} is damaged (SQLite: ${what}). Stop every process using DATA_DIR and restore ${path.basename(file)} from a backup of DATA_DIR, deleting its -wal and -shm files.`,
  );
}

const isCorruption = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB'));
};

/**
 * Runs `open`, naming the file when SQLite finds it is no database or a damaged one (that the
 * directory and the file can be used at all, prepareDataDir has checked before).
 */
function opened<T>(file: string, open: () => T): T {
  try {
    return open();
  } catch (err) {
    if (isCorruption(err)) throw corrupted(file, (err as Error).message);
    throw err;
  }
}

/**
 * PRAGMA quick_check: every page and b-tree of the file, without matching indexes to their tables.
 * About 0.1 s for a log of 100,000 events (44 MB) in the page cache; the rebuild of the read models that
 * follows reads the whole log anyway.
 */
function quickCheck(db: Database.Database, file: string): void {
  let result: unknown;
  try {
    result = db.pragma('quick_check(1)', { simple: true });
  } catch (err) {
    if (isCorruption(err)) throw corrupted(file, (err as Error).message);
    throw err;
  }
  if (result !== 'ok') throw corrupted(file, String(result));
}

/** A connection to events.db for these checks (created 0600 when missing, like the event store's). */
function openLog(file: string): Database.Database {
  return opened(file, () => {
    createPrivately(file);
    const db = new Database(file, { timeout: LOCK_WAIT_MS });
    try {
      useWal(db);
    } catch (err) {
      db.close();
      throw err;
    }
    return db;
  });
}

function withDb<T>(db: Database.Database, fn: (db: Database.Database) => T): T {
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Missing, or no bytes at all (`truncate -s 0`): SQLite would take it for a new database. */
function isEmpty(file: string): boolean {
  return (fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0) === 0;
}

function hasTable(db: Database.Database, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

function hasRows(db: Database.Database, table: string): boolean {
  return hasTable(db, table) && db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined;
}

function readId(db: Database.Database): string | null {
  if (!hasTable(db, 'data_directory')) return null;
  return (db.prepare('SELECT id FROM data_directory WHERE slot = 1').pluck().get() as string | undefined) ?? null;
}

/** Stores `id` unless the file has one already; the stored id (a concurrent first start may have won). */
function claimId(db: Database.Database, id: string): string {
  db.prepare('INSERT OR IGNORE INTO data_directory (slot, id, created_at) VALUES (1, ?, ?)').run(
    id,
    new Date().toISOString(),
  );
  return readId(db)!;
}
