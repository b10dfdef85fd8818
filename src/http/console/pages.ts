import type { ApiKeyRecord, Partner } from '../../ports/partner-store.js';
import type { RecordedEvent, StreamInfo } from '../../ports/event-store.js';
import type { OrderView } from '../../domain/order/state.js';
import { ORDER_STATUSES } from '../../domain/order/machine.js';
import { formatMoney } from '../../domain/money.js';
import { pathMarks, toMermaid } from '../../domain/order/diagram.js';
import type { DeliveryState } from '../../domain/webhook/delivery-state.js';
import type { HistoryStep } from '../../application/orders/history.js';
import type { OrderListEntry } from '../../../projections/orders-list.js';
import type { SearchMatch, SearchResult } from '../../application/orders/order-search.js';
import type { ProjectionStatus } from '../../application/read-models.js';
import type { AuditReport } from '../../application/audit/verify.js';
import type { AuditJobState } from '../../application/audit/audit-job.js';
import { html, jsonBlock, raw, type Html } from './html.js';

export type Section = 'orders' | 'streams' | 'read-side' | 'partners';

const SECTIONS: Array<[Section, string]> = [
  ['orders', 'Orders'],
  ['streams', 'Streams'],
  ['read-side', 'Read side'],
  ['partners', 'Partners and keys'],
];

export interface Frame {
  title: string;
  section?: Section;
  /** The session's CSRF token; absent on the login page. */
  csrf?: string;
  notice?: { text: string; bad?: boolean } | undefined;
  /** Scripts besides console.js (the order page's mermaid). */
  mermaid?: boolean;
}

/** Every page: navigation, the log-out form and the page's own content. */
export function layout(frame: Frame, body: Html): string {
  const nav = frame.csrf
    ? html`<header>
        <strong>Operations console</strong>
        <nav aria-label="Sections">
          <ul>
            ${SECTIONS.map(
              ([id, label]) =>
                html`<li>
                  <a href="/console/${id}" ${frame.section === id ? raw(' aria-current="page"') : ''}>${label}</a>
                </li>`,
            )}
          </ul>
        </nav>
        <form method="post" action="/console/logout">
          ${csrfField(frame.csrf)}<button type="submit">Log out</button>
        </form>
      </header>`
    : html`<header><strong>Operations console</strong></header>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${frame.title} · Operations console</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        ${frame.mermaid ? raw('<script src="/console/assets/mermaid.js" defer></script>') : ''}
        <script src="/console/assets/console.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>${nav}
        <main id="main">
          <h1>${frame.title}</h1>
          ${frame.notice ? html`<p class="notice${frame.notice.bad ? ' bad' : ''}" role="status">${frame.notice.text}</p>` : ''}
          ${body}
        </main>
      </body>
    </html>`.text;
}

export const csrfField = (token: string): Html => html`<input type="hidden" name="csrf" value="${token}" />`;

/** `next`: the console path to go on to once logged in (already checked to be one). */
export function loginPage(message?: string, next?: string): string {
  return layout(
    { title: 'Log in', notice: message ? { text: message, bad: true } : undefined },
    html`<form class="login" method="post" action="/console/login">
      ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}
      <label for="token">Admin token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
      <button type="submit">Log in</button>
      <p class="muted">The service's ADMIN_TOKEN. The session ends 8 hours after logging in.</p>
      ${next ? html`<p class="muted wrap" id="next">Then on to <span class="mono">${next}</span>.</p>` : ''}
    </form>`,
  );
}

/** A metadata id as stored: any JSON (the store keeps what it is given), shown as text. */
const idText = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
const money = (minor: number, o: Pick<OrderView, 'currency'>): string => formatMoney(minor, o.currency);
/** JSON in a box that scrolls past its size (CSS), focusable so that the keyboard scrolls it too. */
const scrollBox = (value: unknown): Html => html`<pre tabindex="0">${JSON.stringify(value, null, 2)}</pre>`;
/** A table's header row: one column header per label. */
const columnHeads = (...labels: Array<string | Html>): Html =>
  html`<thead>
    <tr>
      ${labels.map((label) => html`<th scope="col">${label}</th>`)}
    </tr>
  </thead>`;
const status = (s: string | null): Html => html`<span class="status">${s ?? 'unknown'}</span>`;
const options = (values: readonly string[], selected: string | undefined, any: string): Html =>
  html`<option value="">${any}</option>
    ${values.map((v) => html`<option value="${v}" ${v === selected ? raw(' selected') : ''}>${v}</option>`)}`;

export interface OrdersPageInput {
  q: string | undefined;
  status: string | undefined;
  environment: string | undefined;
  partner: string | undefined;
  /** A search's matches, every kind that matched (none: nothing did), at most `limit` orders each; undefined for recent orders. */
  found: { results: SearchResult[]; limit: number } | undefined;
  /** Recent orders (not a search). */
  orders: OrderListEntry[];
  /** The last order shown when there are older ones: the next page starts after it. */
  older: string | undefined;
}

/** Each kind of match has its own heading: links from the note above point at it. */
const matchAnchor = (match: SearchMatch): string => `match-${match.replace(/ /g, '-')}`;

function searchResults(q: string, found: SearchResult[], limit: number): Html {
  if (!found.length)
    return html`<p class="notice bad wrap" role="status">
      No order matches “${q}” as an order id, order number, partner id or partner reference.
    </p>`;
  // Partners choose their references: one may equal another partner's id or an order number. Every
  // kind is listed, and the page says so first, so that no kind hides another.
  const several =
    found.length > 1
      ? html`<p class="notice wrap" role="status">
          “${q}” matches ${found.length} kinds:
          ${found.map(
            (f, i) =>
              html`${i ? (i === found.length - 1 ? ' and ' : ', ') : ''}<a href="#${matchAnchor(f.match)}"
                  >orders whose ${f.match} it is</a
                >`,
          )}.
        </p>`
      : '';
  return html`${several}
    <p class="muted">Every partner and environment: the filters do not apply to a search.</p>
    ${found.map(
      (f) =>
        html`<h2 id="${matchAnchor(f.match)}" class="wrap">Orders whose ${f.match} is “${q}”</h2>
          ${f.orders.length >= limit ? html`<p class="muted">The newest ${limit} are shown.</p>` : ''}
          ${
            f.match === 'partner'
              ? html`<p>
                  <a href="/console/orders?partner=${encodeURIComponent(q)}"
                    >Every order of this partner, with the filters</a
                  >
                </p>`
              : ''
          }
          ${orderTable(f.orders)}`,
    )}`;
}

export function ordersPage(csrf: string, input: OrdersPageInput): string {
  const listing =
    input.q && input.found
      ? searchResults(input.q, input.found.results, input.found.limit)
      : html`<h2>Recent orders</h2>
          ${orderTable(input.orders)}
          ${input.older ? html`<p><a href="/console/orders?${olderQuery(input)}">Older orders</a></p>` : ''}`;
  return layout(
    { title: 'Orders', section: 'orders', csrf },
    html`<form method="get" action="/console/orders" role="search" class="filters">
        <div>
          <label for="q">Order id, number, partner reference or partner id</label
          ><input id="q" name="q" size="34" value="${input.q ?? ''}" aria-describedby="q-scope" />
        </div>
        <button type="submit">Find</button>
        <p class="muted" id="q-scope">
          A search looks through every partner and environment; the filters below apply to recent orders only.
        </p>
      </form>
      <form method="get" action="/console/orders" class="filters" aria-label="Filter recent orders">
        <div>
          <label for="status">Status</label
          ><select id="status" name="status">
            ${options(ORDER_STATUSES, input.status, 'any')}
          </select>
        </div>
        <div>
          <label for="environment">Environment</label
          ><select id="environment" name="environment">
            ${options(['live', 'sandbox'], input.environment, 'any')}
          </select>
        </div>
        <div>
          <label for="partner">Partner id</label><input id="partner" name="partner" value="${input.partner ?? ''}" />
        </div>
        <button type="submit">Filter</button>
      </form>
      ${listing}`,
  );
}

/** The filters of this page and where the next one starts. */
const olderQuery = (input: OrdersPageInput): string =>
  new URLSearchParams(
    Object.entries({
      status: input.status,
      environment: input.environment,
      partner: input.partner,
      starting_after: input.older,
    }).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();

function orderTable(orders: OrderListEntry[]): Html {
  if (!orders.length) return html`<p class="muted">No orders.</p>`;
  return html`<table>
    <caption class="skip">
      Orders
    </caption>
    ${columnHeads('Order', 'Number', 'Status', 'Environment', 'Partner', 'Reference', 'Total', 'Created')}
    <tbody>
      ${orders.map(
        (o) =>
          html`<tr>
            <td><a href="/console/orders/${encodeURIComponent(o.id)}" class="mono">${o.id}</a></td>
            <td>${o.order.order_number}</td>
            <td>${status(o.status)}</td>
            <td>${o.environment}</td>
            <td class="mono">${o.partner_id}</td>
            <td class="wrap">${o.reference ?? ''}</td>
            <td>${money(o.order.pricing.total, o.order)}</td>
            <td>${o.created_at}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** What the replay shows of the order after one event (also the JSON the script steps through). */
function asOf(step: HistoryStep) {
  const o = step.order;
  return {
    revision: step.entry.revision,
    type: step.entry.type,
    status: step.entry.status_after ?? `refused: ${step.entry.error ?? ''}`,
    payment_status: step.entry.payment_status_after ?? 'unknown',
    total: o ? money(o.pricing.total, o) : 'unknown',
    refunded_total: o ? money(o.refunded_total, o) : 'unknown',
    rider: o?.rider ? `${o.rider.name} (${o.rider.vehicle})` : 'none',
    updated_at: o?.updated_at ?? step.entry.at,
  };
}

/** The machine's statuses an order went through up to each step: its path in the diagram. */
function pathsByStep(steps: HistoryStep[]): string[][] {
  const path = ['new'];
  return steps.map((s) => {
    if (s.entry.status_after) path.push(s.entry.status_after);
    return [...path];
  });
}

export interface OrderPageInput {
  orderId: string;
  steps: HistoryStep[];
  /** Index into steps shown by the replay. */
  at: number;
  deliveries: DeliveryPage;
  notice?: { text: string; bad?: boolean } | undefined;
}

/** One page of an order's deliveries, newest first across pages (the delivery log's order). */
export interface DeliveryPage {
  shown: DeliveryState[];
  /** The cursor this page starts after; undefined on the newest page. */
  after: string | undefined;
  /** The last delivery of this page when there are older ones: the next page starts after it. */
  older: string | undefined;
}

/** The id of a delivery's section: a redelivery comes back to it. */
export const deliveryAnchor = (deliveryId: string): string => `delivery-${deliveryId}`;

export function orderPage(csrf: string, input: OrderPageInput): string {
  const { steps, at, orderId } = input;
  const now = steps.at(-1)!;
  const order = now.order ?? steps.find((s) => s.order)?.order ?? null;
  const shown = asOf(steps[at]!);
  const paths = pathsByStep(steps);
  // The diagram once, each step only the lines marking its path: an order of hundreds of events
  // would otherwise carry the whole diagram hundreds of times.
  const diagram = toMermaid();
  const replay = steps.map((s, i) => ({ ...asOf(s), path: paths[i]!.join(' → '), marks: pathMarks(paths[i]!) }));
  const summary = order
    ? html`<dl class="state">
        <dt>Order number</dt>
        <dd>${order.order_number}</dd>
        <dt>Status now</dt>
        <dd>${status(now.entry.status_after)}</dd>
        <dt>Partner</dt>
        <dd class="mono">${order.partner_id}</dd>
        <dt>Environment</dt>
        <dd>${order.environment}</dd>
        <dt>Partner reference</dt>
        <dd>${order.reference ?? 'none'}</dd>
        <dt>Store</dt>
        <dd>${order.store.name}</dd>
        <dt>Fulfilment</dt>
        <dd>${order.fulfilment}</dd>
        <dt>Payment method</dt>
        <dd>${order.payment_method}</dd>
        <dt>Stream</dt>
        <dd><a class="mono" href="/console/streams/order-${encodeURIComponent(orderId)}">order-${orderId}</a></dd>
      </dl>`
    : html`<p class="notice bad">The order machine refuses this history from its first event.</p>`;
  const prev = Math.max(0, at - 1);
  const next = Math.min(steps.length - 1, at + 1);
  return layout(
    { title: `Order ${orderId}`, section: 'orders', csrf, notice: input.notice, mermaid: true },
    html`${summary}
      <h2 id="replay-heading">Replay</h2>
      <form method="get" class="replay" aria-labelledby="replay-heading">
        <a id="replay-prev" href="?after=${prev}" aria-label="Previous event">◀ Previous</a>
        <label for="replay-slider" class="skip">Event</label>
        <input
          id="replay-slider"
          name="after"
          type="range"
          min="0"
          max="${steps.length - 1}"
          value="${at}"
          aria-describedby="replay-label"
        />
        <a id="replay-next" href="?after=${next}" aria-label="Next event">Next ▶</a>
        <noscript><button type="submit">Show</button></noscript>
        <span id="replay-label" aria-live="polite">After event #${shown.revision} (${shown.type})</span>
      </form>
      <div class="cols">
        <section aria-labelledby="as-of-heading">
          <h2 id="as-of-heading">The order as it was</h2>
          <dl class="state">
            <dt>Status</dt>
            <dd id="as-of-status">${shown.status}</dd>
            <dt>Payment</dt>
            <dd id="as-of-payment_status">${shown.payment_status}</dd>
            <dt>Total</dt>
            <dd id="as-of-total">${shown.total}</dd>
            <dt>Refunded</dt>
            <dd id="as-of-refunded_total">${shown.refunded_total}</dd>
            <dt>Rider</dt>
            <dd id="as-of-rider">${shown.rider}</dd>
            <dt>Updated</dt>
            <dd id="as-of-updated_at">${shown.updated_at}</dd>
          </dl>
        </section>
        <section aria-labelledby="machine-heading">
          <h2 id="machine-heading">Order machine, this order's path highlighted</h2>
          <p class="muted" id="machine-path">Path: ${replay[at]!.path}</p>
          <pre
            class="diagram"
            id="machine-diagram"
            role="img"
            aria-label="State diagram of the order machine; this order’s path: ${replay[at]!.path}"
          >
${diagram + replay[at]!.marks}</pre>
        </section>
      </div>
      <script type="application/json" id="replay-data">
        ${jsonBlock({ diagram, steps: replay })}
      </script>
      <h2>Events</h2>
      <table>
        ${columnHeads('#', 'Time', 'Event', 'Actor', 'Correlation / causation', 'Status after', 'Payment after', 'Data')}
        <tbody>
          ${steps.map(
            (s, i) =>
              html`<tr
                data-revision="${s.entry.revision}"
                ${i > at ? raw(' class="future"') : i === at ? raw(' class="at"') : ''}
              >
                <td><a href="?after=${i}">${s.entry.revision}</a></td>
                <td>${s.entry.at}</td>
                <td>${s.entry.type}</td>
                <td>${s.entry.actor ?? '?'}</td>
                <td class="mono">
                  ${idText(s.entry.metadata.correlation_id)}<br />${idText(s.entry.metadata.causation_id)}
                </td>
                <td>
                  ${s.entry.status_after ? status(s.entry.status_after) : html`<span class="bad">refused: ${s.entry.error ?? ''}</span>`}
                </td>
                <td>${s.entry.payment_status_after ?? ''}</td>
                <td>
                  <details>
                    <summary>data</summary>
                    ${scrollBox(s.entry.data)}
                  </details>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Webhook deliveries</h2>
      ${deliveryTable(csrf, orderId, input.deliveries)}`,
  );
}

/** Where this page of deliveries stands among the order's, with links to the newest and the older ones. */
function deliveryPager(orderId: string, page: DeliveryPage): Html {
  if (page.after === undefined && page.older === undefined) return html``;
  const n = page.shown.length;
  const where =
    page.after === undefined
      ? `The ${n} newest deliveries of this order are shown; there are older ones.`
      : page.older !== undefined
        ? `${n} older deliveries are shown; there are older ones still.`
        : n
          ? `The ${n} oldest deliveries of this order are shown.`
          : '';
  const base = `/console/orders/${encodeURIComponent(orderId)}`;
  return html`<nav aria-label="Pages of deliveries" class="replay">
    ${page.after !== undefined ? html`<a href="${base}">◀ Newest deliveries</a>` : ''}
    <span class="shown">${where}</span>
    ${
      page.older !== undefined
        ? html`<a href="${base}?${new URLSearchParams({ deliveries_after: page.older }).toString()}"
            >Older deliveries ▶</a
          >`
        : ''
    }
  </nav>`;
}

function deliveryTable(csrf: string, orderId: string, page: DeliveryPage): Html {
  const deliveries = page.shown;
  const pager = deliveryPager(orderId, page);
  if (!deliveries.length)
    return page.after === undefined
      ? html`<p class="muted">No webhook deliveries for this order (no endpoint, or none in the last 30 days).</p>`
      : html`<p class="muted">No older deliveries.</p>
          ${pager}`;
  // A redelivery from an older page comes back to that page.
  const samePage =
    page.after === undefined ? '' : html`<input type="hidden" name="deliveries_after" value="${page.after}" />`;
  return html`${pager}${[...deliveries]
    .sort((a, b) => (a.order_revision ?? 0) - (b.order_revision ?? 0) || a.type_index - b.type_index)
    .map(
      (d) =>
        html`<section
          class="delivery"
          id="${deliveryAnchor(d.id)}"
          data-delivery="${d.id}"
          aria-label="Delivery ${d.id}"
        >
          <h3>
            ${d.event_type} <span class="muted">(event #${d.order_revision ?? '?'}, ${d.event_id})</span>:
            ${html`<span class="status delivery-status">${d.status}</span>`}
          </h3>
          <p class="wrap">
            To <span class="mono">${d.url}</span>; ${d.attempt_count}
            attempt(s)${d.next_attempt_at ? `; next at ${d.next_attempt_at}` : ''}${d.failure_reason ? `; failed: ${d.failure_reason}` : ''}.
          </p>
          ${
            d.attempts.length
              ? html`<table>
                  ${columnHeads('When', 'Trigger', 'Response', 'Latency', 'Reason')}
                  <tbody>
                    ${d.attempts.map(
                      (a) =>
                        html`<tr>
                          <td>${a.at}</td>
                          <td>${a.trigger}</td>
                          <td class="${a.status !== null && a.status < 300 ? 'ok' : 'bad'}">
                            ${a.status ?? 'no response'}
                          </td>
                          <td>${a.duration_ms} ms</td>
                          <td class="wrap">${a.error ?? ''}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
              : ''
          }
          <form method="post" action="/console/deliveries/${encodeURIComponent(d.id)}/redeliver">
            ${csrfField(csrf)}${samePage}<button type="submit">Redeliver ${d.event_type}</button>
          </form>
        </section>`,
    )}${pager}`;
}

export interface StreamsPageInput {
  prefix: string;
  limit: number;
  /** The last name of the previous page; undefined on the first page. */
  after: string | undefined;
  streams: StreamInfo[];
  /** EventStoreDB's own UI, when configured. */
  uiUrl?: string | undefined;
}

export function streamsPage(csrf: string, input: StreamsPageInput): string {
  const { prefix, limit, after, streams, uiUrl } = input;
  const query = (from: string | undefined): string =>
    new URLSearchParams({ prefix, limit: String(limit), ...(from === undefined ? {} : { after: from }) }).toString();
  // A full page may have more after it: the next one starts after its last name.
  const next = streams.length >= limit ? streams.at(-1)?.streamId : undefined;
  const pager =
    after !== undefined || next !== undefined
      ? html`<nav aria-label="Pages" class="replay">
          ${after !== undefined ? html`<a href="/console/streams?${query(undefined)}">◀ First page</a>` : ''}
          ${after !== undefined ? html`<span class="shown">Streams after ${after}</span>` : ''}
          ${next !== undefined ? html`<a href="/console/streams?${query(next)}">Next page ▶</a>` : ''}
        </nav>`
      : '';
  return layout(
    { title: 'Streams', section: 'streams', csrf },
    html`${uiUrl ? html`<p class="notice">The event store is EventStoreDB: its own UI is at <a href="${uiUrl}">${uiUrl}</a>.</p>` : ''}
      <form method="get" action="/console/streams" class="filters">
        <div>
          <label for="prefix">Stream name starts with</label
          ><input id="prefix" name="prefix" value="${prefix}" placeholder="order-" />
        </div>
        <div>
          <label for="limit">At most</label
          ><input id="limit" name="limit" type="number" min="1" max="1000" value="${limit}" />
        </div>
        <button type="submit">List</button>
      </form>
      ${
        streams.length
          ? html`<table>
              ${columnHeads('Stream', 'Last revision')}
              <tbody>
                ${streams.map(
                  (s) =>
                    html`<tr>
                      <td>
                        <a class="mono" href="/console/streams/${encodeURIComponent(s.streamId)}">${s.streamId}</a>
                      </td>
                      <td>${s.lastRevision}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p class="muted">${after === undefined ? 'No streams.' : 'No more streams.'}</p>`
      }
      ${pager}`,
  );
}

/** Where the stream page's links go: revisions that exist, from what the store returned. */
export interface StreamPaging {
  /** First revision of the page before this one; undefined when none is kept. */
  earlier: number | undefined;
  /** First revision after this page; undefined at the end. */
  later: number | undefined;
  /** The stream's last revision. */
  last: number;
}

export function streamPage(
  csrf: string,
  stream: string,
  events: RecordedEvent[],
  count: number,
  paging: StreamPaging,
): string {
  const shown = events.length
    ? `Revisions #${events[0]!.revision} to #${events.at(-1)!.revision} shown; last revision of the stream: #${paging.last}`
    : `No events kept here; last revision of the stream: #${paging.last}`;
  const pager = html`<nav aria-label="Pages" class="replay">
    ${paging.earlier !== undefined ? html`<a href="?from=${paging.earlier}&count=${count}">◀ Earlier</a>` : ''}
    <span class="shown">${shown}</span> ${
      paging.later !== undefined ? html`<a href="?from=${paging.later}&count=${count}">Later ▶</a>` : ''
    }
  </nav>`;
  const orderId = stream.startsWith('order-') ? stream.slice('order-'.length) : undefined;
  return layout(
    { title: `Stream ${stream}`, section: 'streams', csrf },
    html`${orderId ? html`<p><a href="/console/orders/${encodeURIComponent(orderId)}">This order's timeline, replay and webhooks</a></p>` : ''}
      ${pager}
      <table>
        ${columnHeads('#', 'Position', 'Recorded', 'Type', 'Metadata', 'Data')}
        <tbody>
          ${events.map(
            (e) =>
              html`<tr>
                <td>${e.revision}</td>
                <td>${e.position}</td>
                <td>${e.recordedAt.toISOString()}</td>
                <td>${e.type}</td>
                <td>${scrollBox(e.metadata)}</td>
                <td>${scrollBox(e.data)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${pager}`,
  );
}

/** Parked events listed per group; the total is shown beside them. */
const PARKED_SHOWN = 20;
const newestParked = (parked: RecordedEvent[]): RecordedEvent[] =>
  [...parked].sort((a, b) => (a.position < b.position ? 1 : a.position > b.position ? -1 : 0)).slice(0, PARKED_SHOWN);

export interface ConsumerGroupStatus {
  name: string;
  lag: bigint;
  parked: RecordedEvent[];
}

export function readSidePage(
  csrf: string,
  projections: ProjectionStatus[],
  groups: ConsumerGroupStatus[],
  notice: { text: string; bad?: boolean } | undefined,
  audit: AuditJobState,
): string {
  return layout(
    { title: 'Read side', section: 'read-side', csrf, notice },
    html`<h2>Projections</h2>
      <table data-poll="/console/read-side/status">
        ${columnHeads('Projection', 'Collection', 'Applied', 'Checkpoint', 'Log head', 'Lag', 'Progress', 'Rebuild')}
        <tbody>
          ${projections.map(
            (p) =>
              html`<tr data-projection="${p.name}">
                <td>${p.name}</td>
                <td>${p.collection}</td>
                <td class="position">${p.position}</td>
                <td class="checkpoint">${p.checkpoint}</td>
                <td class="head">${p.head}</td>
                <td class="lag">${p.lag}</td>
                <td>
                  <progress
                    max="${Number(p.head) || 1}"
                    value="${Number(p.position)}"
                    aria-label="${p.name} applied of the log"
                  ></progress>
                </td>
                <td>
                  <form method="post" action="/console/read-side/${encodeURIComponent(p.name)}/rebuild">
                    ${csrfField(csrf)}<button type="submit" class="danger">Rebuild ${p.name}</button>
                  </form>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Consumer groups</h2>
      <table>
        ${columnHeads('Group', 'Lag', 'Parked events')}
        <tbody>
          ${groups.map(
            (g) =>
              html`<tr>
                <td>${g.name}</td>
                <td>${g.lag}</td>
                <td>
                  ${
                    g.parked.length
                      ? html`${g.parked.length > PARKED_SHOWN ? html`<p>${g.parked.length} parked; the newest ${PARKED_SHOWN}:</p>` : ''}
                          <ul>
                            ${newestParked(g.parked).map((e) => html`<li><a class="mono" href="/console/streams/${encodeURIComponent(e.streamId)}?from=${e.revision}&count=1">${e.streamId} #${e.revision}</a> ${e.type}</li>`)}
                          </ul>`
                      : 'none'
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Audit</h2>
      <p>
        Replays the whole log into fresh read models and compares them with the ones the replica that runs it serves
        (<code>audit verify</code>), in the background, one at a time per replica. Every replica shows the newest audit.
      </p>
      <form method="post" action="/console/read-side/audit">
        ${csrfField(csrf)}<button type="submit">Run audit verify</button>
      </form>
      ${auditState(audit)}`,
  );
}

function auditState(s: AuditJobState): Html {
  switch (s.state) {
    case 'idle':
      return html`<p class="muted">No audit has run from the console yet.</p>`;
    case 'running':
      return html`<p class="notice" id="audit-running" role="status" data-audit-poll="/console/read-side/audit">
        Audit running since ${s.startedAt} on replica <span class="mono">${s.replica}</span>: this page shows its result
        when it ends.
      </p>`;
    case 'failed':
      return html`<p class="bad" id="audit-verdict">
        The audit started at ${s.startedAt} on replica <span class="mono">${s.replica}</span> could not finish
        (${s.finishedAt}): ${s.error}
      </p>`;
    case 'cancelled':
      return html`<p class="notice" id="audit-verdict">
        The audit started at ${s.startedAt} on replica <span class="mono">${s.replica}</span> was cancelled at
        ${s.finishedAt} (the service was stopping).
      </p>`;
    case 'done':
      return html`<p class="muted">
          Audit started at ${s.startedAt} on replica <span class="mono">${s.replica}</span>, finished at
          ${s.finishedAt}; it compared that replica's read models.
        </p>
        ${auditResult(s.report)}`;
  }
}

function auditResult(r: AuditReport): Html {
  const verdict = r.differenceCount
    ? html`<p class="bad" id="audit-verdict">FAILED: ${r.differenceCount} difference(s)</p>`
    : html`<p class="ok" id="audit-verdict">
        OK: ${r.readModels.length} read models equal the replay (log up to position ${r.head})
      </p>`;
  return html`<section aria-label="Audit result">
    ${verdict}
    ${r.behind.map((name) => html`<p class="notice bad">${name} had not applied the whole log when compared.</p>`)}
    <table>
      ${columnHeads('Read model', 'Replayed', 'Served')}
      <tbody>
        ${r.readModels.map(
          (m) =>
            html`<tr>
              <td>${m.collection}</td>
              <td>${m.replayed}</td>
              <td>${m.served}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      r.differences.length
        ? html`<h3>
              Differences${
                r.differences.length < r.differenceCount
                  ? html`: the first ${r.differences.length} of ${r.differenceCount}`
                  : ''
              }
            </h3>
            <ul>
              ${r.differences.map(
                (d) =>
                  html`<li>
                    <span class="mono">${d.collection}/${d.id}</span>:
                    ${
                      d.kind === 'missing'
                        ? 'missing (the replay has it, the service does not)'
                        : d.kind === 'extra'
                          ? 'extra (the service has it, the replay does not)'
                          : html`differs
                              <ul>
                                ${d.fields.map((f) => html`<li><code>${f.path}</code>: replay <code>${JSON.stringify(f.expected)}</code>, served <code>${JSON.stringify(f.served)}</code></li>`)}
                              </ul>`
                    }
                  </li>`,
              )}
            </ul>`
        : ''
    }
  </section>`;
}

export function partnersPage(
  csrf: string,
  partners: Array<{ partner: Partner; keys: ApiKeyRecord[] }>,
  notice?: { text: string; bad?: boolean },
): string {
  return layout(
    { title: 'Partners and keys', section: 'partners', csrf, notice },
    html`${partners.length ? '' : html`<p class="muted">No partners.</p>`}
    ${partners.map(
      ({ partner, keys }) =>
        html`<section aria-labelledby="p-${partner.id}">
          <h2 id="p-${partner.id}" class="wrap">${partner.name} <span class="muted mono">${partner.id}</span></h2>
          <p><a href="/console/orders?partner=${encodeURIComponent(partner.id)}">Orders of this partner</a></p>
          <table>
            ${columnHeads('Key id', 'Key', 'Environment', 'Scopes', 'Rate limit', 'Created', 'Revoked', html`<span class="skip">Action</span>`)}
            <tbody>
              ${keys.map(
                (k) =>
                  html`<tr data-key="${k.id}">
                    <td class="mono">${k.id}</td>
                    <td class="mono">${k.hint}</td>
                    <td>${k.environment}</td>
                    <td>${k.scopes.join(', ')}</td>
                    <td>${k.rate_limit_per_min}/min</td>
                    <td>${k.created_at}</td>
                    <td class="revoked">${k.revoked_at ?? 'active'}</td>
                    <td>
                      ${
                        k.revoked_at
                          ? ''
                          : html`<form method="post" action="/console/keys/${encodeURIComponent(k.id)}/revoke">
                              ${csrfField(csrf)}<button type="submit" class="danger" aria-label="Revoke key ${k.id}">
                                Revoke
                              </button>
                            </form>`
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </section>`,
    )}`,
  );
}

export function errorPage(title: string, message: string, csrf?: string): string {
  return layout(
    { title, ...(csrf ? { csrf } : {}) },
    html`<p>${message}</p>
      <p><a href="/console/orders">Back to the console</a></p>`,
  );
}
