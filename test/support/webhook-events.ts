import type { Service } from '../../src/composition/server.js';
import { waitFor } from './wait.js';

/**
 * Waits until the webhook dispatcher has handled every order event in the log. It records each
 * order change's webhook events (GET /v1/events) moments after the change, also without an
 * endpoint: a test that checks a refused request appended nothing reads the log's head after this.
 */
export function webhookEventsRecorded(service: Service): Promise<true> {
  return waitFor(async () => (await service.webhooks.dispatcher.idle()) || null, {
    what: 'the webhook dispatcher to handle every order event',
  });
}

/** The event log's head once the dispatcher has caught up: what a refused request must leave unchanged. */
export async function settledHead(service: Service): Promise<bigint> {
  await webhookEventsRecorded(service);
  return service.stores.events.headPosition();
}
