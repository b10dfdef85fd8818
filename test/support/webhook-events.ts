import type { Service } from '../../src/composition/server.js';
import { waitFor } from './wait.js';

/**
 * Waits until the webhook dispatcher has handled every order event in the log: it writes the
 * deliveries of a registered endpoint moments after the change, so a test that checks a refused
 * request appended nothing reads the log's head after this.
 */
export async function dispatcherIdle(service: Service): Promise<true> {
  // The dispatcher starts once the webhook sender has (idle() is true where it does not run).
  await service.webhooks.lease.settled();
  return waitFor(async () => (await service.webhooks.dispatcher.idle()) || null, {
    what: 'the webhook dispatcher to handle every order event',
  });
}

/** The event log's head once the dispatcher has caught up: what a refused request must leave unchanged. */
export async function settledHead(service: Service): Promise<bigint> {
  await dispatcherIdle(service);
  return service.stores.events.headPosition();
}
