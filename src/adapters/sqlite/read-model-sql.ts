import type { FieldValue, Query } from '../../ports/read-model-store.js';

/**
 * The read-model store's tables and queries. One table per collection; the fields a read model
 * filters and sorts on (its `indexes`) are copied into columns of their own when a document is
 * written, so indexes and queries use plain values; any other field is read with json_extract.
 * Missing fields and nulls are one value (NULL), sorted lowest, as in the port's contract.
 */

type Param = string | number | null;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names come from projections and services, never from requests; checked all the same. */
function checked(name: string, what: string): string {
  if (!NAME.test(name)) throw new Error(`read model ${what} name not allowed: ${name}`);
  return name;
}

export const tableName = (collection: string): string => `rm_${checked(collection, 'collection')}`;
export const columnName = (field: string): string => `f_${checked(field, 'field')}`;

/** A field as SQL: the id, its own column when indexed, or the value inside the JSON document. */
export function fieldSql(name: string, columns: ReadonlySet<string>): string {
  if (name === '_id' || name === 'id') return 'id';
  return columns.has(name) ? columnName(name) : `json_extract(doc, '$.${checked(name, 'field')}')`;
}

/** The fields a read model's indexes name: each gets a column of its own (the id has one already). */
export const indexedFields = (indexes: ReadonlyArray<Record<string, 1 | -1>>): string[] =>
  [...new Set(indexes.flatMap((spec) => Object.keys(spec)))].filter((f) => f !== '_id' && f !== 'id');

/** SQLite has no booleans: JSON true/false are 1/0 there, so parameters and columns use 1/0 too. */
export function sqlValue(v: unknown): Param {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || typeof v === 'number') return v;
  return v === null || v === undefined ? null : JSON.stringify(v);
}

export function createTableSql(collection: string, columns: readonly string[]): string {
  const extra = columns.map((c) => `, ${columnName(c)}`).join('');
  return `CREATE TABLE IF NOT EXISTS ${tableName(collection)} (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, versions TEXT NOT NULL, doc TEXT NOT NULL${extra})`;
}

export function indexSql(collection: string, spec: Record<string, 1 | -1>, columns: ReadonlySet<string>): string {
  const entries = Object.entries(spec);
  const parts = entries.map(([f, dir]) => `${fieldSql(f, columns)}${dir === -1 ? ' DESC' : ''}`);
  const name = entries.map(([f, dir]) => `${f.replace(/^_/, '')}${dir === -1 ? '_desc' : ''}`).join('_');
  return `CREATE INDEX IF NOT EXISTS ${tableName(collection)}_by_${name} ON ${tableName(collection)} (${parts.join(', ')})`;
}

export function querySql(
  collection: string,
  columns: ReadonlySet<string>,
  q: Query | { where: Record<string, FieldValue>; count: true },
): { sql: string; params: Param[] } {
  const f = (name: string) => fieldSql(name, columns);
  const conditions: string[] = [];
  const params: Param[] = [];
  for (const [name, v] of Object.entries(q.where ?? {})) {
    if (v === null) conditions.push(`${f(name)} IS NULL`);
    else {
      conditions.push(`${f(name)} = ?`);
      params.push(sqlValue(v));
    }
  }
  const from = `FROM ${tableName(collection)}`;
  const where = () => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');
  if ('count' in q) return { sql: `SELECT count(*) AS n ${from}${where()}`, params };

  if (q.range) {
    const r = f(q.range.field);
    for (const [op, sqlOp] of [
      ['gt', '>'],
      ['gte', '>='],
      ['lt', '<'],
      ['lte', '<='],
    ] as const) {
      const v = q.range[op];
      if (v === undefined) continue;
      // Against NULL every comparison is false: null is outside every range, as in the contract.
      conditions.push(`${r} ${sqlOp} ?`);
      params.push(sqlValue(v));
    }
  }
  const s = f(q.sort.field);
  const asc = q.sort.direction === 'asc';
  if (q.after) {
    const { value, id } = q.after;
    // Strictly after (value, id) in sort order, NULL being the lowest value.
    if (value === null) {
      conditions.push(asc ? `(${s} IS NOT NULL OR id > ?)` : `(${s} IS NULL AND id < ?)`);
      params.push(id);
    } else if (asc) {
      conditions.push(`(${s} > ? OR (${s} = ? AND id > ?))`);
      params.push(sqlValue(value), sqlValue(value), id);
    } else {
      conditions.push(`(${s} < ? OR ${s} IS NULL OR (${s} = ? AND id < ?))`);
      params.push(sqlValue(value), sqlValue(value), id);
    }
  }
  const dir = asc ? 'ASC' : 'DESC';
  params.push(q.limit);
  return { sql: `SELECT id, seq, versions, doc ${from}${where()} ORDER BY ${s} ${dir}, id ${dir} LIMIT ?`, params };
}
