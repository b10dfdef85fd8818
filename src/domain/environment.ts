/** Where a key works: `live` or `sandbox`. Neither sees the other's data (docs/api.md). */
export const ENVIRONMENTS = ['live', 'sandbox'] as const;

export type Environment = (typeof ENVIRONMENTS)[number];

/** For values read back from storage (event metadata), which the type system cannot vouch for. */
export function isEnvironment(value: unknown): value is Environment {
  return value === 'live' || value === 'sandbox';
}
