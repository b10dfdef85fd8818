import type { StoredDocument } from '../../ports/read-model-store.js';

export interface FieldDifference {
  /** e.g. `doc.status`, `doc.timeline[2].at`, `versions.order-ord_1`. */
  path: string;
  expected: unknown;
  served: unknown;
}

export interface Difference {
  collection: string;
  id: string;
  /** missing: the replay has it, the service does not; extra: the other way round. */
  kind: 'missing' | 'extra' | 'different';
  fields: FieldDifference[];
}

const MAX_FIELDS = 20;

/**
 * Compares replayed documents with served ones by id: the document and the per-stream revisions
 * it absorbed. `seq` is left out on purpose: it counts events absorbed, and a bounded stream
 * (rider positions) legitimately gives a later replay fewer events to absorb for the same result.
 * Values are compared as JSON (what every store keeps), ignoring key order.
 */
export function diffDocuments(
  collection: string,
  expected: Array<StoredDocument<unknown>>,
  served: Array<StoredDocument<unknown>>,
): Difference[] {
  const byId = new Map(served.map((d) => [d.id, d]));
  const out: Difference[] = [];
  for (const want of expected) {
    const got = byId.get(want.id);
    byId.delete(want.id);
    if (!got) {
      out.push({ collection, id: want.id, kind: 'missing', fields: [] });
      continue;
    }
    const fields: FieldDifference[] = [];
    compare('doc', json(want.doc), json(got.doc), fields);
    compare('versions', json(want.versions), json(got.versions), fields);
    if (fields.length) out.push({ collection, id: want.id, kind: 'different', fields: fields.slice(0, MAX_FIELDS) });
  }
  for (const id of byId.keys()) out.push({ collection, id, kind: 'extra', fields: [] });
  return out;
}

const json = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function compare(path: string, a: unknown, b: unknown, out: FieldDifference[]): void {
  if (out.length >= MAX_FIELDS || a === b) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) compare(`${path}[${i}]`, a[i], b[i], out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) compare(`${path}.${k}`, a[k], b[k], out);
    return;
  }
  out.push({ path, expected: a, served: b });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
