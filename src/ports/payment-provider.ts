import type { Currency } from '../domain/money.js';
import type { Environment } from '../domain/environment.js';

export interface PaymentLink {
  id: string;
  url: string;
  expires_at: string;
}

/**
 * Where card payments happen. The built-in provider (src/application/payments) serves a hosted
 * checkout page from this service; a real PSP can be plugged in behind the same port, reporting
 * outcomes through OrderService.recordPaymentOutcome.
 */
export interface PaymentProvider {
  /** A fresh link on every call; earlier links stay valid until they expire or the order is paid. */
  createLink(input: {
    order_id: string;
    environment: Environment;
    amount: number;
    currency: Currency;
    description: string;
  }): Promise<PaymentLink>;
}
