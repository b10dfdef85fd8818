import { setTimeout as delay } from 'node:timers/promises';
import { MongoServerError, type Collection, type Db } from 'mongodb';

export const DUPLICATE_KEY = 11000;

export const isDuplicateKey = (err: unknown): boolean => err instanceof MongoServerError && err.code === DUPLICATE_KEY;

const atomicity = new WeakMap<Db, Promise<boolean>>();

/**
 * Whether the server applies a filtered single-document update atomically, as MongoDB (and
 * mongo-java-server) do. FerretDB 1.x does not: it reads the matching documents, then writes each
 * back by _id, so two writers whose filter matched the same version both write (seen on v1.24.2:
 * 15 of 20 racing `updateOne({ _id, seq: n })` reported a match). It names itself in `buildInfo`.
 */
export function updatesAreAtomic(db: Db): Promise<boolean> {
  let known = atomicity.get(db);
  if (!known) {
    known = db.command({ buildInfo: 1 }).then((info) => !('ferretdbVersion' in info));
    known.catch(() => atomicity.delete(db)); // asked again next time
    atomicity.set(db, known);
  }
  return known;
}

interface ClaimDoc {
  _id: string;
  scope: string;
  at: Date;
}

/**
 * Compare-and-set where filtered updates are not atomic (see `updatesAreAtomic`). An insert is
 * atomic everywhere (the unique _id), so a writer first inserts a claim named after the version it
 * moves from: one writer per version gets it, makes its guarded update, and deletes the claim.
 * A writer that finds the claim taken has lost the race. A claim whose writer died before deleting
 * it blocks that version for `leaseMs`, then the next writer removes it.
 */
export class Claims {
  private readonly claims: Collection<ClaimDoc>;

  constructor(
    db: Db,
    private readonly leaseMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.claims = db.collection<ClaimDoc>('write_claims');
  }

  /** Runs `write` holding the claim `id` (of `scope`); null, without running it, when another writer holds it. */
  async tryWith<T>(scope: string, id: string, write: () => Promise<T>): Promise<{ value: T } | null> {
    if (!(await this.take(scope, id))) return null;
    try {
      return { value: await write() };
    } finally {
      await this.claims.deleteOne({ _id: id });
    }
  }

  /** Runs `write` holding the claim, waiting while another writer holds it. */
  async with<T>(scope: string, id: string, write: () => Promise<T>): Promise<T> {
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      const done = await this.tryWith(scope, id, write);
      if (done) return done.value;
      await delay(pause);
    }
  }

  /** Forgets every claim of a scope (its documents were dropped). */
  async clear(scope: string): Promise<void> {
    await this.claims.deleteMany({ scope });
  }

  private async take(scope: string, id: string): Promise<boolean> {
    try {
      await this.claims.insertOne({ _id: id, scope, at: new Date(this.now()) });
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const held = await this.claims.findOne({ _id: id });
    if (held && this.now() - held.at.getTime() > this.leaseMs) await this.claims.deleteOne({ _id: id, at: held.at });
    return false;
  }
}
