/** Every scope a key can carry. Keys created without explicit scopes get all of them. */
export const SCOPES = {
  'catalog:read': 'Stores, menus, items, delivery quotes, search, categories, store offers.',
  'offers:read': 'GET /offers (platform and store promotions at a location).',
  'promo_codes:validate': 'POST /promo-codes/validate.',
  'orders:write': 'Place, cancel and pay for orders (POST /orders, /cancel, /payment).',
  'orders:read': 'Read orders, the order list and tracking.',
  'webhooks:manage':
    'Register, read and delete the webhook endpoint, rotate its secret, send test events, recover failed deliveries.',
  'webhooks:read': 'Read and redeliver webhook deliveries; read events (GET /events).',
  'sandbox:write': 'Move sandbox orders with POST /sandbox/orders/{id}/advance (sandbox keys only).',
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(s: string): s is Scope {
  return Object.hasOwn(SCOPES, s);
}
