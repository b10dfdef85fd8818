/**
 * Whole-catalog validation with one problem per fault, each named by its JSON path
 * (`stores[3].menu.categories[0].items[2].price`), so an import can list every fix needed.
 * Cross-references are checked only once the shapes are right: they need typed data.
 */
import type { z } from 'zod';
import { CatalogSchema, type Catalog } from './model.js';
import { formatPath as jsonPath } from '../../shared/json-path.js';
import { ILL_FORMED, illFormedPath } from '../../shared/unicode.js';

export interface CatalogProblem {
  path: string;
  message: string;
}

export type CatalogValidation = { ok: true; catalog: Catalog } | { ok: false; problems: CatalogProblem[] };

/** At most this many problems are reported; a wholly wrong file would otherwise list thousands. */
export const MAX_PROBLEMS = 200;

export function validateCatalog(json: unknown): CatalogValidation {
  // The API refuses such strings in requests (http/validation.ts); a catalog's are served and copied into orders and webhooks.
  const illFormed = illFormedPath(json);
  if (illFormed) return { ok: false, problems: [{ path: formatPath(illFormed), message: ILL_FORMED }] };
  const parsed = CatalogSchema.safeParse(json);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.flatMap(toProblems).slice(0, MAX_PROBLEMS) };
  const problems = crossReferenceProblems(parsed.data);
  return problems.length === 0
    ? { ok: true, catalog: parsed.data }
    : { ok: false, problems: problems.slice(0, MAX_PROBLEMS) };
}

/** Like validateCatalog but throws; for data that should already be valid (stored snapshots). */
export function parseCatalog(json: unknown): Catalog {
  const result = validateCatalog(json);
  if (result.ok) return result.catalog;
  const first = result.problems
    .slice(0, 5)
    .map((p) => `${p.path}: ${p.message}`)
    .join('; ');
  throw new Error(`invalid catalog (${result.problems.length} problems): ${first}`);
}

/** JSON path of a problem; `(root)` when the whole document is wrong. */
export function formatPath(path: readonly PropertyKey[]): string {
  return jsonPath(path) || '(root)';
}

function toProblems(issue: z.core.$ZodIssue): CatalogProblem[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: 'unknown field' }));
  }
  return [{ path: formatPath(issue.path), message: issue.message }];
}

function crossReferenceProblems(catalog: Catalog): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const add = (path: PropertyKey[], message: string) => problems.push({ path: formatPath(path), message });

  const categoryIds = firstIndexById(
    catalog.categories.map((c) => c.id),
    (i, id) => add(['categories', i, 'id'], `category id repeated: ${id}`),
  );
  const storeIds = firstIndexById(
    catalog.stores.map((s) => s.id),
    (i, id) => add(['stores', i, 'id'], `store id repeated: ${id}`),
  );
  firstIndexById(
    catalog.offers.map((o) => o.id),
    (i, id) => add(['offers', i, 'id'], `offer id repeated: ${id}`),
  );
  const codes = catalog.offers.map((o) => o.promo_code?.toUpperCase() ?? null);
  firstIndexById(codes, (i, code) =>
    add(['offers', i, 'promo_code'], `promo code repeated (codes ignore case): ${code}`),
  );

  catalog.stores.forEach((store, si) => {
    store.category_ids.forEach((id, ci) => {
      if (!categoryIds.has(id)) add(['stores', si, 'category_ids', ci], `unknown category: ${id}`);
    });
  });
  catalog.offers.forEach((offer, oi) => {
    if (offer.store_id === undefined) return;
    const si = storeIds.get(offer.store_id);
    const store = si === undefined ? undefined : catalog.stores[si];
    if (!store) add(['offers', oi, 'store_id'], `unknown store: ${offer.store_id}`);
    else if (offer.currency !== null && offer.currency !== store.currency) {
      add(['offers', oi, 'currency'], `store ${store.id} prices in ${store.currency}, not ${offer.currency}`);
    }
  });
  return problems;
}

/** Map of id -> first index; calls onRepeat for every later repeat. Null ids are skipped. */
function firstIndexById(ids: (string | null)[], onRepeat: (index: number, id: string) => void): Map<string, number> {
  const first = new Map<string, number>();
  ids.forEach((id, i) => {
    if (id === null) return;
    if (first.has(id)) onRepeat(i, id);
    else first.set(id, i);
  });
  return first;
}
