import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { isApiError } from '../../domain/errors.js';
import { WrongExpectedRevisionError } from '../../ports/event-store.js';
import { formatMoney } from '../../domain/money.js';
import { pageContentSecurityPolicy } from '../content-security-policy.js';
import {
  takesPayments,
  type BuiltinCheckout,
  type CheckoutSession,
} from '../../application/payments/builtin-checkout.js';
import type { OrderService } from '../../application/orders/order-service.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A checkout page, with the status it is answered with when not 200. */
type Page = ReturnType<typeof page> & { status?: number };

/**
 * The link is the capability to pay: never framed (a page of another site could overlay its Pay
 * button), never kept by a shared cache, never sent on in a Referer.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy': pageContentSecurityPolicy({ formAction: "'self'" }),
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function page(title: string, body: string) {
  return {
    headers: PAGE_HEADERS,
    raw: {
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:420px;margin:3em auto;padding:0 1em}button{font-size:1.1em;padding:.6em 1.2em;margin:.3em}</style></head>
<body><h1>${esc(title)}</h1>${body}</body></html>`,
    },
  };
}

const Params = z.object({ session_id: z.string().min(1).max(100) });
const NO_LIVE_PAYMENTS = page(
  'Payment not possible here',
  '<p>This payment link cannot take live payments. Nothing was charged; ask for another way to pay.</p>',
);
const html = { description: 'HTML page.', contentType: 'text/html' };

/** The built-in provider's hosted checkout: a payer opens the link, then pays or declines. */
export function checkoutRoutes(deps: { checkout: BuiltinCheckout; orders: OrderService }) {
  const amountText = (s: CheckoutSession) => formatMoney(s.amount, s.currency);

  /** The session a link opens, or the page refusing it: unknown, used, expired, or live. */
  const opened = async (sessionId: string): Promise<{ session: CheckoutSession } | { refusal: Page }> => {
    const session = await deps.checkout.session(sessionId);
    if (!session)
      return {
        refusal: { status: 404, ...page('Payment link not found', '<p>This payment link does not exist.</p>') },
      };
    if (session.outcome)
      return {
        refusal: page('Already done', `<p>This payment link was already used (${esc(session.outcome)}).</p>`),
      };
    if (deps.checkout.isExpired(session))
      return { refusal: { status: 410, ...page('Link expired', '<p>Ask for a new payment link.</p>') } };
    if (!takesPayments(session.environment)) return { refusal: { status: 410, ...NO_LIVE_PAYMENTS } };
    return { session };
  };

  const complete = async (sessionId: string, outcome: 'paid' | 'failed') => {
    const link = await opened(sessionId);
    if ('refusal' in link) return link.refusal;
    const { session } = link;
    // The order is updated first: if we stop between the two writes, a retry finds the order paid.
    try {
      await deps.orders.operate(
        { actor: 'system' },
        session.order_id,
        outcome === 'paid'
          ? { type: 'recordPaymentSucceeded', amount: session.amount, provider_ref: session.provider_ref }
          : { type: 'recordPaymentFailed', reason: 'declined by payer' },
      );
    } catch (err) {
      // The order kept changing under the payment (the API answers 409 concurrent_modification):
      // nothing was recorded, and the payer can simply try again.
      if (err instanceof WrongExpectedRevisionError)
        return { status: 409, ...page('Please try again', '<p>The order was being updated. Nothing was charged.</p>') };
      if (!isApiError(err)) throw err;
      return { status: 409, ...page('Payment not possible', `<p>${esc(err.message)}</p>`) };
    }
    await deps.checkout.complete(sessionId, session, outcome);
    return outcome === 'paid'
      ? page('Payment received', `<p>${esc(amountText(session))} paid. You can close this page.</p>`)
      : page('Payment declined', '<p>The payment was declined. Ask for a new link to try again.</p>');
  };

  return [
    defineRoute({
      method: 'get',
      path: '/checkout/:session_id',
      operationId: 'checkoutPage',
      summary: 'Hosted checkout page of the built-in payment provider',
      tags: ['Checkout'],
      auth: 'public',
      request: { params: Params },
      responses: { 200: html, 404: html, 409: html, 410: html },
      handler: async ({ params }) => {
        const link = await opened(params.session_id);
        if ('refusal' in link) return link.refusal;
        const { session } = link;
        // Paid through another link, or no longer open: nothing to pay here (paying would be refused).
        if (!(await deps.orders.awaitsPayment(session.order_id)))
          return {
            status: 409,
            ...page(
              'No payment needed',
              '<p>This order needs no payment any more: it was paid, or is no longer open.</p>',
            ),
          };
        const base = `/checkout/${encodeURIComponent(params.session_id)}`;
        return page(
          `Pay ${amountText(session)}`,
          `<p>${esc(session.description)}</p>${session.environment === 'sandbox' ? '<p><b>Sandbox</b>: no real money moves.</p>' : ''}
<form method="post" action="${base}/pay"><button type="submit">Pay ${esc(amountText(session))}</button></form>
<form method="post" action="${base}/fail"><button type="submit">Decline</button></form>`,
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/checkout/:session_id/pay',
      operationId: 'checkoutPay',
      summary: 'Pay (built-in provider)',
      tags: ['Checkout'],
      auth: 'public',
      request: { params: Params },
      responses: { 200: html, 404: html, 409: html, 410: html },
      handler: ({ params }) => complete(params.session_id, 'paid'),
    }),
    defineRoute({
      method: 'post',
      path: '/checkout/:session_id/fail',
      operationId: 'checkoutDecline',
      summary: 'Decline (built-in provider)',
      tags: ['Checkout'],
      auth: 'public',
      request: { params: Params },
      responses: { 200: html, 404: html, 409: html, 410: html },
      handler: ({ params }) => complete(params.session_id, 'failed'),
    }),
  ];
}
