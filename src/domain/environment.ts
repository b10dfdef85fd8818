/** Where a key works: `live` or `sandbox`. Neither sees the other's data (docs/api.md). */
export const ENVIRONMENTS = ['live', 'sandbox'] as const;

export type Environment = (typeof ENVIRONMENTS)[number];
