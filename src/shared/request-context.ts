import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line and every event written during a request needs to know about it. */
export interface RequestContext {
  requestId: string;
  partnerId?: string;
  environment?: 'live' | 'sandbox';
}

const storage = new AsyncLocalStorage<RequestContext>();

export const requestContext = {
  run<T>(ctx: RequestContext, fn: () => T): T {
    return storage.run(ctx, fn);
  },
  get(): RequestContext | undefined {
    return storage.getStore();
  },
};
