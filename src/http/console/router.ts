import fs from 'node:fs';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ApiError, isApiError } from '../../domain/errors.js';
import { ORDER_STATUSES, type OrderStatus } from '../../domain/order/machine.js';
import type { Environment } from '../../domain/environment.js';
import { StreamAccessDeniedError, type EventStore } from '../../ports/event-store.js';
import type { Logger } from '../../shared/logger.js';
import type { ReadModels } from '../../application/read-models.js';
import type { PartnerAdmin } from '../../application/partners.js';
import type { OrderSearch } from '../../application/orders/order-search.js';
import { readOrderHistory } from '../../application/orders/history.js';
import type { AuditJob } from '../../application/audit/audit-job.js';
import { pageContentSecurityPolicy } from '../content-security-policy.js';
import type { Clock } from '../../shared/clock.js';
import type { WebhookDeliveries } from '../../webhooks/deliveries.js';
import type { AuthThrottle } from '../middleware/auth.js';
import { beforeReading, carriesBody } from '../middleware/body.js';
import { CONSOLE_ASSETS, MERMAID } from './assets.js';
import { sameSecret } from '../../shared/secrets.js';
import { ConsoleSessions, type ConsoleSession } from './sessions.js';
import { rebuild } from '../routes/internal-read-models.js';
import {
  deliveryAnchor,
  errorPage,
  loginPage,
  orderPage,
  ordersPage,
  partnersPage,
  readSidePage,
  streamPage,
  streamsPage,
  type ConsumerGroupStatus,
} from './pages.js';

/** What the console reads and does: the same application services as the CLI and the /internal API. */
export interface ConsoleDeps {
  events: EventStore;
  search: OrderSearch;
  readModels: ReadModels;
  deliveries: WebhookDeliveries;
  partners: PartnerAdmin;
  consumerGroups(): Promise<ConsumerGroupStatus[]>;
  /** With EVENT_STORE=eventstoredb: where its own UI is, linked from the streams page. */
  eventStoreUiUrl?: string | undefined;
  /** This process's `audit verify` job (one at a time, in the background). */
  audit: AuditJob;
  /** Session expiry is read from it. */
  clock: Clock;
  /** PUBLIC_BASE_URL is https: the cookie is always Secure (and every answer sends Strict-Transport-Security: app.ts). */
  httpsOnly?: boolean | undefined;
}

export const CONSOLE_COOKIE = 'console_sid';

/** Scripts and styles from /console/assets; forms post to the console only. */
export const CONSOLE_CSP = pageContentSecurityPolicy({ formAction: "'self'" });

const NOTICES: Record<string, string> = {
  redelivered: 'Redelivered: the attempt is the last one of the delivery below.',
  revoked: 'Key revoked: requests with it are refused from now on (within a second on every replica).',
  rebuilding: 'Rebuild started: the progress is below.',
  'audit-started': 'Audit started: its result appears below when it ends.',
  'audit-running': 'An audit is already running: no second one was started; its result appears below when it ends.',
};

/** The largest form the console reads (a login, an action with its CSRF token). */
const FORM_LIMIT_BYTES = 8 * 1024;
/** Recent orders shown a page at a time. */
const RECENT_PAGE = 50;
/** An order's webhook deliveries shown a page at a time (a partner can make hundreds). */
const DELIVERIES_PAGE = 50;
/** The most orders a search shows of each kind of match. */
const SEARCH_LIMIT = 50;

const session = (res: Response): ConsoleSession => res.locals.console as ConsoleSession;

/**
 * The notice an action's redirect asks for (`?done=`), only on a page reached from the console
 * itself: the session cookie (SameSite=Lax) comes with a link from another site too, and such a
 * link must not show "Key revoked" for nothing. Browsers without Sec-Fetch-Site show it.
 */
function noticeOf(req: Request): { text: string } | undefined {
  const done = text(req.query.done);
  const site = req.headers['sec-fetch-site'];
  if (!done || !Object.hasOwn(NOTICES, done) || (site !== undefined && site !== 'same-origin')) return undefined;
  return { text: NOTICES[done]! };
}
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const int = (v: unknown, fallback: number, min: number, max: number): number => {
  // Any run of digits: a number past `max` is `max` (a `from` past a stream's end is its 404), not the fallback.
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : fallback;
  return Math.min(max, Math.max(min, n));
};

/**
 * Where a login goes on to: the console page the operator was sent away from (a link from an alert
 * or a chat), as a path of this origin under /console only, never elsewhere (no open redirect).
 * Undefined for anything else, which goes to the orders page.
 */
export function returnPath(next: unknown): string | undefined {
  if (typeof next !== 'string' || !next.startsWith('/') || next.length > 2000) return undefined;
  const origin = 'http://console.invalid';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return undefined;
  }
  // `//host/…` and `/\host/…` parse to another origin; dot segments are resolved before the check.
  if (url.origin !== origin || url.pathname === '/console/login') return undefined;
  if (url.pathname !== '/console' && !url.pathname.startsWith('/console/')) return undefined;
  return url.pathname + url.search;
}

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * The operations console under /console (only built when ADMIN_TOKEN is set): server-rendered
 * pages over the application services, a session cookie from logging in with the admin token, and
 * a synchronizer CSRF token on every form that changes something.
 */
export function consoleRouter(
  deps: ConsoleDeps,
  options: { adminToken: string; throttle: AuthThrottle; logger: Logger },
): Router {
  const sessions = new ConsoleSessions(options.adminToken, deps.clock);
  const log = options.logger.child({ component: 'console' });
  const router = express.Router();
  const send = (res: Response, status: number, page: string) =>
    res.status(status).type('text/html; charset=utf-8').send(page);
  const act = (res: Response, action: string, fields: Record<string, unknown>) =>
    log.info(
      { console_session: session(res).logId, request_id: res.locals.requestId as string, action, ...fields },
      'console action',
    );
  /** The operator's trail: which page showed what (an order, a stream, a search). */
  const viewed = (res: Response, page: string, fields: Record<string, unknown>) =>
    log.info(
      { console_session: session(res).logId, request_id: res.locals.requestId as string, page, ...fields },
      'console view',
    );
  // EventStoreDB refuses its system streams ($…) to a user without the rights: say so, not a 500.
  const accessDenied = (res: Response, err: StreamAccessDeniedError) =>
    send(
      res,
      403,
      errorPage('Access denied', `The event store does not let this service read ${err.streamId}.`, session(res).csrf),
    );
  const handle =
    (fn: (req: Request, res: Response) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction): void => {
      fn(req, res).catch(next);
    };

  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });

  router.get('/console/assets/:file', (req, res, next) => {
    const file = String(req.params.file);
    res.setHeader('Cache-Control', 'no-cache');
    if (file === MERMAID.name) {
      // 3.6 MB (1.0 gzipped): only for a logged-in operator, never for anyone who can reach the port.
      if (!sessions.verify(cookieValue(req, CONSOLE_COOKIE)))
        return void send(res, 401, errorPage('Log in first', 'This file is for logged-in operators.'));
      // Streamed from disk, gzipped when the build's copy is there; each body has its own ETag.
      let found: { path: string; gzip: boolean; stat: fs.Stats };
      try {
        const gzipStat =
          req.acceptsEncodings('gzip') === 'gzip' ? fs.statSync(MERMAID.gzipped, { throwIfNoEntry: false }) : undefined;
        const plain = MERMAID.plain();
        found = gzipStat
          ? { path: MERMAID.gzipped, gzip: true, stat: gzipStat }
          : { path: plain, gzip: false, stat: fs.statSync(plain) };
      } catch (err) {
        return void next(err);
      }
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader(
        'ETag',
        `"${found.gzip ? 'gz' : 'id'}-${found.stat.size.toString(16)}-${Math.trunc(found.stat.mtimeMs).toString(16)}"`,
      );
      if (req.fresh) return void res.status(304).end();
      res.type(MERMAID.contentType);
      if (found.gzip) res.setHeader('Content-Encoding', 'gzip');
      return void res.sendFile(
        found.path,
        { cacheControl: false, lastModified: false, etag: false, dotfiles: 'allow' },
        (err) => {
          if (err && !res.headersSent) {
            res.removeHeader('Content-Encoding');
            next(err);
          }
        },
      );
    }
    const asset = Object.hasOwn(CONSOLE_ASSETS, file) ? CONSOLE_ASSETS[file] : undefined;
    if (!asset) return void send(res, 404, errorPage('Not found', 'The console has no such file.'));
    res.setHeader('ETag', asset.etag);
    if (req.fresh) return void res.status(304).end();
    res.type(asset.contentType);
    res.send(asset.body);
  });

  // Pages and answers below hold operators' data: never stored by a browser or a proxy.
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  const readForm = express.urlencoded({ extended: false, limit: FORM_LIMIT_BYTES, parameterLimit: 20 });
  router.use((req, res, next) => {
    const refused = req.is('application/x-www-form-urlencoded') ? beforeReading(req, res, FORM_LIMIT_BYTES) : undefined;
    if (refused) return next(refused);
    readForm(req, res, next);
  });

  router.get('/console/login', (req, res) => void send(res, 200, loginPage(undefined, returnPath(req.query.next))));
  router.post('/console/login', (req, res) => {
    const body = req.body as Record<string, unknown> | undefined;
    const next = returnPath(body?.next);
    // Over budget, the answer is 429 before the token is looked at: right or wrong, it is the same.
    const blocked = options.throttle.blocked(req);
    if (blocked) return void send(res, blocked.status, loginPage(blocked.message, next));
    const token = typeof body?.token === 'string' ? body.token : '';
    try {
      if (!sameSecret(token, options.adminToken))
        options.throttle.failed(req, new ApiError('invalid_api_key', 'That is not the admin token.'));
    } catch (err) {
      if (!isApiError(err)) throw err;
      return void send(res, err.status, loginPage(err.message, next));
    }
    const { session: created, cookie } = sessions.create();
    res.locals.consoleSession = created.logId;
    log.info({ console_session: created.logId, request_id: res.locals.requestId as string }, 'console login');
    res.cookie(CONSOLE_COOKIE, cookie, {
      httpOnly: true,
      // Lax, not Strict: a console link followed from another site (an alert, a chat) carries the
      // session. Only GETs, which change nothing, get it from elsewhere; every change needs the CSRF token.
      sameSite: 'lax',
      secure: req.secure || deps.httpsOnly === true,
      path: '/console',
      // The browser drops it after the session's 8 hours too; the server's check is what counts.
      maxAge: created.expiresAt - created.issuedAt,
    });
    res.redirect(303, next ?? '/console/orders');
  });

  // Everything else needs a session; a change needs the session's CSRF token too.
  router.use((req, res, next) => {
    const found = sessions.verify(cookieValue(req, CONSOLE_COOKIE));
    if (!found) {
      if (req.method === 'GET') {
        // The login then goes on to the page asked for.
        const next = returnPath(req.originalUrl);
        return void res.redirect(303, next ? `/console/login?next=${encodeURIComponent(next)}` : '/console/login');
      }
      return void send(res, 401, errorPage('Logged out', 'Log in again: this session is unknown or has expired.'));
    }
    res.locals.console = found;
    res.locals.consoleSession = found.logId;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const given = text((req.body as Record<string, unknown> | undefined)?.csrf) ?? '';
      if (!sessions.csrfMatches(found, given)) {
        log.warn(
          { console_session: found.logId, request_id: res.locals.requestId as string, path: req.path },
          'console CSRF token refused',
        );
        return void send(
          res,
          403,
          errorPage(
            'Refused',
            'This form is stale or did not come from the console: reload the page and try again.',
            found.csrf,
          ),
        );
      }
    }
    next();
  });

  router.post('/console/logout', (req, res) => {
    act(res, 'logout', {});
    // Clears the browser's cookie; a copy taken before stays valid until it expires (see sessions.ts).
    res.clearCookie(CONSOLE_COOKIE, {
      path: '/console',
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure || deps.httpsOnly === true,
    });
    res.redirect(303, '/console/login');
  });

  router.get('/console', (_req, res) => res.redirect(303, '/console/orders'));

  router.get(
    '/console/orders',
    handle(async (req, res) => {
      const q = text(req.query.q);
      const statusFilter: OrderStatus | undefined = ORDER_STATUSES.find((s) => s === req.query.status);
      const environment: Environment | undefined = (['live', 'sandbox'] as const).find(
        (e) => e === req.query.environment,
      );
      const partner = text(req.query.partner);
      if (q) {
        const results = await deps.search.search(q, SEARCH_LIMIT);
        viewed(res, 'search', { q, match: results.map((r) => r.match).join(', ') || 'nothing' });
        if (results[0]?.match === 'order id') return res.redirect(303, `/console/orders/${encodeURIComponent(q)}`);
        return void send(
          res,
          200,
          ordersPage(session(res).csrf, {
            q,
            status: undefined,
            environment: undefined,
            partner: undefined,
            found: { results, limit: SEARCH_LIMIT },
            orders: [],
            older: undefined,
          }),
        );
      }
      const startingAfter = text(req.query.starting_after);
      viewed(res, 'orders', {
        status: statusFilter ?? null,
        environment: environment ?? null,
        partner_id: partner ?? null,
        starting_after: startingAfter ?? null,
      });
      const orders = await deps.search.recent({
        limit: RECENT_PAGE + 1,
        status: statusFilter,
        environment,
        partnerId: partner,
        startingAfter,
      });
      send(
        res,
        200,
        ordersPage(session(res).csrf, {
          q,
          status: statusFilter,
          environment,
          partner,
          found: undefined,
          orders: orders.slice(0, RECENT_PAGE),
          older: orders.length > RECENT_PAGE ? orders[RECENT_PAGE - 1]!.id : undefined,
        }),
      );
    }),
  );

  router.get(
    '/console/orders/:order_id',
    handle(async (req, res) => {
      const orderId = String(req.params.order_id);
      const steps = await readOrderHistory(deps.events, orderId);
      viewed(res, 'order', { order_id: orderId, found: steps.length > 0 });
      if (!steps.length)
        return void send(res, 404, errorPage('No such order', `No order with id ${orderId}.`, session(res).csrf));
      // A history the machine refuses from its first event is still shown (that is what needs looking into).
      const first = steps[0]!.order;
      const deliveriesAfter = text(req.query.deliveries_after);
      const { deliveries, has_more } = first
        ? await deps.deliveries.list(
            { partnerId: first.partner_id, environment: first.environment },
            { limit: DELIVERIES_PAGE, order_id: orderId, starting_after: deliveriesAfter },
          )
        : { deliveries: [], has_more: false };
      const notice = noticeOf(req);
      send(
        res,
        200,
        orderPage(session(res).csrf, {
          orderId,
          steps,
          at: int(req.query.after, steps.length - 1, 0, steps.length - 1),
          deliveries: {
            shown: deliveries,
            after: deliveriesAfter,
            older: has_more ? deliveries.at(-1)!.id : undefined,
          },
          notice,
        }),
      );
    }),
  );

  router.post(
    '/console/deliveries/:delivery_id/redeliver',
    handle(async (req, res) => {
      const deliveryId = String(req.params.delivery_id);
      // The delivery names its owner and its order: nothing posted is trusted for either.
      const delivery = await deps.deliveries.find(deliveryId);
      if (!delivery) {
        act(res, 'redeliver', { delivery_id: deliveryId, outcome: 'not found' });
        return void send(
          res,
          404,
          errorPage('No such delivery', `No webhook delivery with id ${deliveryId}.`, session(res).csrf),
        );
      }
      const fields = { delivery_id: deliveryId, order_id: delivery.order_id };
      let after;
      try {
        after = await deps.deliveries.redeliver(
          { partnerId: delivery.partner_id, environment: delivery.environment },
          deliveryId,
          res.locals.requestId as string,
        );
      } catch (err) {
        act(res, 'redeliver', { ...fields, outcome: isApiError(err) ? err.code : 'failed' });
        throw err;
      }
      act(res, 'redeliver', {
        ...fields,
        outcome: after.status,
        attempt_status: after.attempts.at(-1)?.status ?? null,
      });
      // Back to the page of deliveries the form was on, at this delivery.
      const deliveriesAfter = text((req.body as Record<string, unknown> | undefined)?.deliveries_after);
      const back = new URLSearchParams({
        ...(deliveriesAfter ? { deliveries_after: deliveriesAfter } : {}),
        done: 'redelivered',
      });
      res.redirect(
        303,
        delivery.order_id
          ? `/console/orders/${encodeURIComponent(delivery.order_id)}?${back.toString()}#${encodeURIComponent(deliveryAnchor(deliveryId))}`
          : '/console/orders',
      );
    }),
  );

  router.get(
    '/console/streams',
    handle(async (req, res) => {
      const prefix = text(req.query.prefix) ?? '';
      const limit = int(req.query.limit, 100, 1, 1000);
      // A stream name as the previous page ended with it: not trimmed.
      const after = typeof req.query.after === 'string' && req.query.after !== '' ? req.query.after : undefined;
      viewed(res, 'streams', { prefix, ...(after === undefined ? {} : { after }) });
      let streams;
      try {
        streams = await deps.events.listStreams({ limit, ...(prefix ? { prefix } : {}), ...(after ? { after } : {}) });
      } catch (err) {
        if (err instanceof StreamAccessDeniedError) return void accessDenied(res, err);
        throw err;
      }
      send(res, 200, streamsPage(session(res).csrf, { prefix, limit, after, streams, uiUrl: deps.eventStoreUiUrl }));
    }),
  );

  router.get(
    '/console/streams/:stream',
    handle(async (req, res) => {
      const stream = String(req.params.stream);
      const count = int(req.query.count, 50, 1, 500);
      const from = int(req.query.from, 0, 0, Number.MAX_SAFE_INTEGER);
      viewed(res, 'stream', { stream, from });
      const csrf = session(res).csrf;
      try {
        const [last] = await deps.events.readStream(stream, { backwards: true, maxCount: 1 });
        if (!last) return void send(res, 404, errorPage('No such stream', `Stream ${stream} has no events.`, csrf));
        if (from > last.revision)
          return void send(
            res,
            404,
            errorPage('Past the end', `Stream ${stream} ends at revision ${last.revision}.`, csrf),
          );
        // A bounded stream (setStreamMaxCount) keeps only its newest events: pages follow the
        // revisions actually returned, never the arithmetic of `from`.
        const events = await deps.events.readStream(stream, { fromRevision: from, maxCount: count });
        const first = events[0]?.revision;
        const earlier =
          first !== undefined && first > 0
            ? await deps.events.readStream(stream, { fromRevision: first - 1, backwards: true, maxCount: count })
            : [];
        send(
          res,
          200,
          streamPage(csrf, stream, events, count, {
            earlier: earlier.at(-1)?.revision,
            later: events.length && events.at(-1)!.revision < last.revision ? events.at(-1)!.revision + 1 : undefined,
            last: last.revision,
          }),
        );
      } catch (err) {
        if (err instanceof StreamAccessDeniedError) return void accessDenied(res, err);
        throw err;
      }
    }),
  );

  router.get(
    '/console/read-side',
    handle(async (req, res) => {
      viewed(res, 'read-side', {});
      send(
        res,
        200,
        readSidePage(
          session(res).csrf,
          await deps.readModels.status(),
          await deps.consumerGroups(),
          noticeOf(req),
          await deps.audit.state(),
        ),
      );
    }),
  );
  router.get(
    '/console/read-side/audit',
    handle(async (_req, res) => {
      const s = await deps.audit.state();
      res.json({ state: s.state, ...(s.state === 'idle' ? {} : { started_at: s.startedAt, replica: s.replica }) });
    }),
  );
  router.get(
    '/console/read-side/status',
    handle(async (_req, res) => {
      res.json(await deps.readModels.status());
    }),
  );
  router.post(
    '/console/read-side/:name/rebuild',
    handle(async (req, res) => {
      const name = String(req.params.name);
      try {
        await rebuild(deps.readModels, name);
      } catch (err) {
        act(res, 'rebuild', { projection: name, outcome: isApiError(err) ? err.code : 'failed' });
        throw err;
      }
      act(res, 'rebuild', { projection: name, outcome: 'started' });
      res.redirect(303, '/console/read-side?done=rebuilding');
    }),
  );
  router.post(
    '/console/read-side/audit',
    handle(async (_req, res) => {
      // In the background, one at a time: the job logs its own outcome when it ends. Its start is
      // recorded before the redirect, so whichever replica serves the next page shows it running.
      const started = await deps.audit.start(session(res).logId);
      act(res, 'audit verify', { outcome: started ? 'started' : 'refused: one is running' });
      res.redirect(303, `/console/read-side?done=${started ? 'audit-started' : 'audit-running'}`);
    }),
  );

  router.get(
    '/console/partners',
    handle(async (_req, res) => {
      viewed(res, 'partners', {});
      const partners = await deps.partners.listPartners();
      const withKeys = await Promise.all(
        partners.map(async (partner) => ({ partner, keys: await deps.partners.listKeys(partner.id) })),
      );
      send(res, 200, partnersPage(session(res).csrf, withKeys, noticeOf(_req)));
    }),
  );
  router.post(
    '/console/keys/:key_id/revoke',
    handle(async (req, res) => {
      const keyId = String(req.params.key_id);
      const revoked = await deps.partners.revokeKey(keyId);
      act(res, 'revoke key', { key_id: keyId, outcome: revoked ? 'revoked' : 'not found' });
      if (!revoked) return void send(res, 404, errorPage('No such key', `No key with id ${keyId}.`, session(res).csrf));
      res.redirect(303, '/console/partners?done=revoked');
    }),
  );

  router.use(
    (_req, res) =>
      void send(
        res,
        404,
        errorPage(
          'Not found',
          'The console has no such page.',
          (res.locals.console as ConsoleSession | undefined)?.csrf,
        ),
      ),
  );
  // Errors answer as pages, never the API's JSON envelope: an ApiError says what went wrong.
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const csrf = (res.locals.console as ConsoleSession | undefined)?.csrf;
    // Refused with a body still to come (over the form limit): not read, so not kept alive.
    if (carriesBody(req) && !req.complete) res.setHeader('Connection', 'close');
    if (isApiError(err)) return void send(res, err.status, errorPage('Not done', err.message, csrf));
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return void send(res, status, errorPage('Refused', 'The request could not be read.', csrf));
    log.error(
      { err, console_session: (res.locals.console as ConsoleSession | undefined)?.logId },
      'console request failed',
    );
    send(res, 500, errorPage('Failed', 'Something went wrong; the log has the details.', csrf));
  });
  return router;
}
