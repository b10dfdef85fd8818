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

/** Differences found, counted in full; only the first `MAX_DIFFERENCES` are kept. */
export interface Differences {
  count: number;
  first: Difference[];
}

/** How many differences a report keeps (the count covers them all). */
export const MAX_DIFFERENCES = 500;

export const noDifferences = (): Differences => ({ count: 0, first: [] });

export function addDifference(to: Differences, d: Difference): void {
  to.count++;
  if (to.first.length < MAX_DIFFERENCES) to.first.push(d);
}

/**
 * Compares replayed documents with served ones by id: the document and the per-stream revisions
 * it absorbed. `seq` is left out on purpose: it counts events absorbed, and a bounded stream
 * (rider positions) legitimately gives a later replay fewer events to absorb for the same result.
 * Values are compared as JSON (what every store keeps), ignoring key order.
 *
 * Incremental: each served page is compared as it comes (`served`), removing what it matched from
 * `expected`; `finish` then reports what the replay has and the service never served.
 */
export class DocumentDiff {
  private readonly expected: Map<string, StoredDocument<unknown>>;

  /**
   * `defer`: given a difference of a served document before it is counted, true to leave it to the
   * caller (a document that moved on past the replayed head is judged once the replay has caught up).
   */
  constructor(
    private readonly collection: string,
    expected: Array<StoredDocument<unknown>>,
    private readonly out: Differences,
    private readonly defer: (d: Difference, served: StoredDocument<unknown>) => boolean = () => false,
  ) {
    this.expected = new Map(expected.map((d) => [d.id, d]));
  }

  served(page: Array<StoredDocument<unknown>>): void {
    for (const got of page) {
      const want = this.expected.get(got.id);
      this.expected.delete(got.id);
      const d = want
        ? documentDifference(this.collection, want, got)
        : { collection: this.collection, id: got.id, kind: 'extra' as const, fields: [] };
      if (d && !this.defer(d, got)) addDifference(this.out, d);
    }
  }

  finish(): void {
    for (const id of this.expected.keys())
      addDifference(this.out, { collection: this.collection, id, kind: 'missing', fields: [] });
    this.expected.clear();
  }
}

/** How a served document differs from the replayed one of the same id, if it does. */
export function documentDifference(
  collection: string,
  want: StoredDocument<unknown>,
  got: StoredDocument<unknown>,
): Difference | undefined {
  const fields: FieldDifference[] = [];
  compare('doc', json(want.doc), json(got.doc), fields);
  compare('versions', json(want.versions), json(got.versions), fields);
  return fields.length
    ? { collection, id: want.id, kind: 'different', fields: fields.slice(0, MAX_FIELDS) }
    : undefined;
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
