/** A delivery on the agenda: when its next attempt is due, and where it stands in its order's lane. */
export interface AgendaEntry {
  id: string;
  /** Deliveries of one order share a lane: their first attempts go out one after another, in order. */
  lane: string;
  rank: [number, number];
  endpoint: string;
  dueAt: number;
  attempted: boolean;
}

interface Queued {
  entry: AgendaEntry;
  dueAt: number;
  /** Order of queueing: among deliveries due at the same time, the one queued first goes first. */
  seq: number;
}

/**
 * One endpoint's deliveries on the agenda, with the next one to attempt found in O(log n) however
 * long the backlog (a receiver back after an outage): a min-heap, by due time, of the deliveries
 * that may go now, those attempted before and the first of each lane still waiting for its first
 * attempt. A delivery that leaves the heap's candidates (removed, started, moved behind a new first
 * of its lane) leaves its place behind; such places are skipped when they reach the top, and the
 * heap is rebuilt when they outnumber the candidates.
 */
export class EndpointAgenda {
  private readonly entries = new Map<string, AgendaEntry>();
  /** Per lane, the deliveries waiting for their first attempt, by rank; the first may go. */
  private readonly lanes = new Map<string, AgendaEntry[]>();
  private heap: Queued[] = [];
  /** Each candidate's place in the heap; a place not listed here is left behind. */
  private readonly queued = new Map<string, Queued>();
  /** Candidates taken off the top during one look because they were being attempted (a redelivery). */
  private parked: Queued[] = [];
  private seq = 0;

  get size(): number {
    return this.entries.size;
  }

  add(entry: AgendaEntry): void {
    this.remove(entry.id);
    this.entries.set(entry.id, entry);
    if (entry.attempted) return this.queue(entry);
    const lane = this.lanes.get(entry.lane);
    if (!lane) {
      this.lanes.set(entry.lane, [entry]);
      return this.queue(entry);
    }
    let i = lane.length;
    while (i > 0 && before(entry, lane[i - 1]!)) i--;
    lane.splice(i, 0, entry);
    if (i === 0) {
      this.queued.delete(lane[1]!.id);
      this.queue(entry);
    }
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.queued.delete(id);
    if (entry.attempted) return;
    const lane = this.lanes.get(entry.lane)!;
    const i = lane.indexOf(entry);
    lane.splice(i, 1);
    if (lane.length === 0) this.lanes.delete(entry.lane);
    else if (i === 0) this.queue(lane[0]!);
  }

  /** The delivery could not be attempted: it is due again at `dueAt`. */
  reschedule(id: string, dueAt: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.dueAt = dueAt;
    if (entry.attempted || this.lanes.get(entry.lane)![0] === entry) this.queue(entry);
  }

  /**
   * The candidate due first, if it is due by `now`, passing over those `busy` says are being
   * attempted (until `unpark`). `take` then removes it from the candidates.
   */
  next(now: number, busy: (id: string) => boolean): AgendaEntry | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top || top.dueAt > now) return undefined;
      if (this.queued.get(top.entry.id) !== top) this.pop();
      else if (busy(top.entry.id)) this.parked.push(this.pop());
      else return top.entry;
    }
  }

  /** Takes the candidate `next` returned: it is being attempted, and comes back with `add` or `reschedule`. */
  take(): void {
    this.queued.delete(this.pop().entry.id);
  }

  /** Puts back what `next` passed over. */
  unpark(): void {
    for (const q of this.parked) this.push(q);
    this.parked = [];
  }

  private queue(entry: AgendaEntry): void {
    const q: Queued = { entry, dueAt: entry.dueAt, seq: this.seq++ };
    this.queued.set(entry.id, q);
    this.push(q);
    if (this.heap.length > 2 * this.queued.size + 64) this.compact();
  }

  private compact(): void {
    const kept = this.heap.filter((q) => this.queued.get(q.entry.id) === q);
    this.heap = [];
    for (const q of kept) this.push(q);
  }

  private push(q: Queued): void {
    const heap = this.heap;
    let i = heap.push(q) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(q, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = q;
  }

  private pop(): Queued {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && earlier(heap[right]!, heap[left]!) ? right : left;
      if (!earlier(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

function earlier(a: Queued, b: Queued): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
}

/** Lane order: the order's revision, then the event's place among the order's webhook types. */
function before(a: AgendaEntry, b: AgendaEntry): boolean {
  return a.rank[0] < b.rank[0] || (a.rank[0] === b.rank[0] && a.rank[1] < b.rank[1]);
}
