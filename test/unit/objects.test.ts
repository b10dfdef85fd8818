import { describe, expect, it } from 'vitest';
import { copy, extend, update } from '../../src/shared/objects.js';

interface Delivery {
  status: 'pending' | 'succeeded';
  attempts: number;
  url?: string | null;
}

describe('shared object helpers', () => {
  it('extend: given a base and extra fields, when extended, then the base is untouched and extra wins', () => {
    const base = { a: 1, b: 2 };
    const extended = extend(base, { b: 'two', c: true });
    expect(extended).toEqual({ a: 1, b: 'two', c: true });
    expect(Object.keys(extended)).toEqual(['a', 'b', 'c']);
    expect(base).toEqual({ a: 1, b: 2 });
  });

  it('copy: given a frozen value, when copied, then the copy is equal, its own and not frozen', () => {
    const value = Object.freeze({ a: 1, nested: { b: 2 } });
    const copied = copy(value);
    expect(copied).toEqual(value);
    expect(copied).not.toBe(value);
    expect(Object.isFrozen(copied)).toBe(false);
    expect(copied.nested).toBe(value.nested);
  });

  it('update: given a document, when some fields change, then the copy has them in the base field order', () => {
    const doc: Delivery = { status: 'pending', attempts: 0 };
    const next: Delivery = update(doc, { status: 'succeeded', attempts: doc.attempts + 1, url: null });
    expect(next).toEqual({ status: 'succeeded', attempts: 1, url: null });
    expect(Object.keys(next)).toEqual(['status', 'attempts', 'url']);
    expect(doc).toEqual({ status: 'pending', attempts: 0 });
  });

  it('update: given a document, when a change has a misspelled key, a wrong value or undefined for a required field, then it does not compile', () => {
    const doc: Delivery = { status: 'pending', attempts: 0 };
    // Checked by `npm run typecheck`: each line below fails to compile without its directive.
    // @ts-expect-error misspelled key
    update(doc, { stauts: 'succeeded' });
    // @ts-expect-error not one of the statuses
    update(doc, { status: 'sent' });
    // @ts-expect-error a required field
    update(doc, { attempts: undefined });
    expect(update(doc, {})).toEqual(doc);
  });
});
