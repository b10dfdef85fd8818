/**
 * OpenAPI links of responses, by operationId and status: where an answer's id leads (the order a
 * POST /v1/orders created, the delivery a test webhook made). Clients and API tools (schemathesis's
 * stateful phase) follow them to reach real resources instead of guessing ids.
 */
export interface LinkObject {
  /** The operation the link leads to. */
  operationId: string;
  /** Its parameters, as runtime expressions over this response (`$response.body#/data/id`). */
  parameters: Record<string, string>;
  description: string;
}

const orderLinks: Record<string, LinkObject> = Object.fromEntries(
  (
    [
      ['GetOrder', 'getOrder', 'The order, as it is now.'],
      ['CancelOrder', 'cancelOrder', 'Cancel the order.'],
      ['CreatePaymentLink', 'createPaymentLink', 'A payment link for the order (card orders).'],
      ['GetOrderTracking', 'getOrderTracking', "The order's tracking."],
      ['AdvanceSandboxOrder', 'advanceSandboxOrder', 'Move the sandbox order to its next status.'],
      ['SimulateSandboxOrder', 'simulateSandboxOrder', 'Make an actor act on the sandbox order.'],
    ] as const
  ).map(([name, operationId, description]) => [
    name,
    { operationId, parameters: { order_id: '$response.body#/data/id' }, description },
  ]),
);

const deliveryLinks: Record<string, LinkObject> = {
  GetWebhookDelivery: {
    operationId: 'getWebhookDelivery',
    parameters: { delivery_id: '$response.body#/data/id' },
    description: 'The delivery with its attempts.',
  },
  RedeliverWebhook: {
    operationId: 'redeliverWebhook',
    parameters: { delivery_id: '$response.body#/data/id' },
    description: 'Send the delivery again now.',
  },
  GetEvent: {
    operationId: 'getEvent',
    parameters: { event_id: '$response.body#/data/event_id' },
    description: 'The event the delivery sends.',
  },
};

export const RESPONSE_LINKS: Readonly<Record<string, Readonly<Record<string, Record<string, LinkObject>>>>> = {
  // 201: placed; 200: the order an earlier request with the same Idempotency-Key placed.
  createOrder: { '201': orderLinks, '200': orderLinks },
  sendTestWebhook: { '202': deliveryLinks },
};

/** `{ links }` of one response of an operation, or `{}` when it has none (to spread into the response). */
export function responseLinks(operationId: string, status: string): { links?: Record<string, LinkObject> } {
  const links = RESPONSE_LINKS[operationId]?.[status];
  return links ? { links } : {};
}
