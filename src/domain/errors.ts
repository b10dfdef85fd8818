/**
 * Every error code the API can answer with, and the HTTP status it maps to.
 * This is the one place that decides both; handlers throw `ApiError(code)`.
 */
export const ERROR_CODES = {
  validation_error: { status: 400, message: 'The request is invalid.' },
  missing_api_key: { status: 401, message: 'No API key was sent. Use "Authorization: Bearer <API_KEY>".' },
  invalid_api_key: { status: 401, message: 'The API key is not valid.' },
  insufficient_scope: { status: 403, message: 'The API key lacks the scope this endpoint requires.' },
  sandbox_only: { status: 403, message: 'This endpoint only accepts sandbox (svc_test_) keys.' },
  not_found: { status: 404, message: 'No such resource.' },
  store_not_found: { status: 404, message: 'No such store.' },
  item_not_found: { status: 404, message: 'No such item.' },
  order_not_found: { status: 404, message: 'No such order.' },
  delivery_not_found: { status: 404, message: 'No such webhook delivery.' },
  event_not_found: { status: 404, message: 'No such event.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  idempotency_conflict: {
    status: 409,
    message: 'This Idempotency-Key was already used with a different request body.',
  },
  idempotency_in_progress: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  },
  order_not_cancellable: { status: 409, message: 'The order can no longer be cancelled.' },
  invalid_transition: { status: 409, message: 'The order cannot make this transition in its current state.' },
  payment_not_required: { status: 409, message: 'This order needs no online payment.' },
  payment_provider_unavailable: {
    status: 422,
    message: 'No payment provider takes payments in this environment.',
  },
  payment_pending: {
    status: 409,
    message:
      'The order is waiting for its card payment: the customer pays through its payment link (POST /v1/orders/{order_id}/payment); a sandbox order can be paid with POST /v1/sandbox/orders/{order_id}/simulate {"action": "payment_succeeded"}.',
  },
  quote_expired: {
    status: 409,
    message: 'The delivery quote has expired; get a new one from GET /v1/stores/{store_id}/delivery-quote.',
  },
  concurrent_modification: { status: 409, message: 'The resource was modified concurrently; retry the request.' },
  delivery_in_progress: {
    status: 409,
    message: 'An attempt of this webhook delivery is in flight; retry once it has ended.',
  },
  webhook_endpoint_not_configured: { status: 409, message: 'No webhook endpoint is registered for this environment.' },
  request_timeout: { status: 408, message: 'The request was not received in time; send it again.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Request bodies must be sent as application/json.' },
  item_unavailable: { status: 422, message: 'An item in the order is not available.' },
  store_closed: { status: 422, message: 'The store is not accepting orders right now.' },
  out_of_zone: { status: 422, message: 'The delivery address is outside the store delivery area.' },
  below_minimum_order: { status: 422, message: 'The order subtotal is below the store minimum.' },
  invalid_promo_code: { status: 422, message: 'The promo code cannot be applied.' },
  invalid_refund: { status: 422, message: 'The refund amount is not valid for this order.' },
  invalid_modifiers: { status: 422, message: "The chosen options do not fit the item's modifier groups." },
  invalid_amount: { status: 422, message: "The amount does not fit the store's currency." },
  conflicting_parameters: { status: 422, message: 'Two parameters that name the same setting disagree.' },
  time_out_of_range: { status: 422, message: 'A time is outside the range this operation allows.' },
  url_not_allowed: {
    status: 422,
    message: 'The webhook URL host does not resolve, or resolves to an address that is not public.',
  },
  quote_mismatch: {
    status: 422,
    message: 'The delivery quote does not hold for this order (another store, partner, environment or place).',
  },
  rate_limited: { status: 429, message: 'Too many requests; retry after the time in the Retry-After header.' },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  internal_error: { status: 500, message: 'An internal error occurred; retry the request.' },
  service_unavailable: { status: 503, message: 'The service is starting or shutting down; retry shortly.' },
  storage_unavailable: {
    status: 503,
    message: 'The service cannot store data right now (its storage is full or failing); retry later.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetail {
  /** JSON path of the failing field or the parameter name, e.g. `items[0].quantity` or `lat`. */
  param: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  /** Additional, code-specific fields rendered into the error object (e.g. promo `reason`). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { param?: string; details?: ErrorDetail[]; extra?: Record<string, unknown> } = {},
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.param = options.param ?? options.details?.[0]?.param;
    this.details = options.details;
    this.extra = options.extra;
  }
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
