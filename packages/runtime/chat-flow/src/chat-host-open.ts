// The sessions a chat-flow host holds open, in use order: a list through their entries. A Map kept in
// use order (delete and set again on each use, the oldest deleted when full) leaves a hole at each
// deleted key until the Map grows, and each walk from its start steps over every hole at its head:
// about as many as it has entries, on every start of a full host.

import { createChurnMap } from '@parley/core';

/** One open session and its neighbours in use order. */
interface Entry<S> {
  session: S;
  older: Entry<S> | undefined;
  newer: Entry<S> | undefined;
  /** One of the `hot` most recently used. */
  hot: boolean;
}

/**
 * @internal The sessions a host holds open by id, least recently used first. The `hot` most
 * recently used are hot; `cool` hears each session that falls out of them (the host lets an idle
 * one keep its record as text).
 */
export class OpenSessions<S extends { readonly id: string }> {
  // sessions open and close all the time: a Map would keep every closed one alive (see createChurnMap)
  readonly #byId = createChurnMap<string, Entry<S>>();
  #oldest: Entry<S> | undefined = undefined;
  #newest: Entry<S> | undefined = undefined;
  /** The least recently used hot entry: it and every newer one are hot. */
  #edge: Entry<S> | undefined = undefined;
  #hotCount = 0;

  constructor(
    private readonly hot: number,
    private readonly cool: (session: S) => void,
  ) {}

  get size(): number {
    return this.#byId.size;
  }

  /** The session held open as `id`. */
  get(id: string): S | undefined {
    return this.#byId.get(id)?.session;
  }

  /** The session held open as `id`, made the most recently used. */
  use(id: string): S | undefined {
    const entry = this.#byId.get(id);
    if (entry === undefined) return undefined;
    if (entry !== this.#newest) {
      this.#unlink(entry);
      this.#link(entry);
    }
    return entry.session;
  }

  /**
   * Holds `session` open as the most recently used. Its id is not held: the host forgets the session
   * held as an id before it opens another, in the task of that id (one at a time).
   */
  add(session: S): void {
    const entry: Entry<S> = { session, older: undefined, newer: undefined, hot: false };
    this.#byId.set(session.id, entry);
    this.#link(entry);
  }

  /** Stops holding `session`; false when it is not the one held as its id. */
  delete(session: S): boolean {
    const entry = this.#byId.get(session.id);
    if (entry?.session !== session) return false;
    this.#byId.delete(session.id);
    this.#unlink(entry);
    return true;
  }

  /** The least recently used session that `busy` does not name. */
  oldest(busy: (id: string) => boolean): S | undefined {
    for (let entry = this.#oldest; entry !== undefined; entry = entry.newer) {
      if (!busy(entry.session.id)) return entry.session;
    }
    return undefined;
  }

  /** The sessions held, least recently used first. */
  values(): S[] {
    const all: S[] = [];
    for (let entry = this.#oldest; entry !== undefined; entry = entry.newer) all.push(entry.session);
    return all;
  }

  #link(entry: Entry<S>): void {
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest === undefined) this.#oldest = entry;
    else this.#newest.newer = entry;
    this.#newest = entry;
    entry.hot = true;
    this.#edge ??= entry;
    if (++this.#hotCount <= this.hot) return;
    const cooled = this.#edge;
    cooled.hot = false;
    this.#edge = cooled.newer;
    this.#hotCount--;
    this.cool(cooled.session);
  }

  #unlink(entry: Entry<S>): void {
    if (entry.hot) {
      entry.hot = false;
      this.#hotCount--;
      if (this.#edge === entry) this.#edge = entry.newer;
    }
    if (entry.older === undefined) this.#oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.#newest = entry.older;
    else entry.newer.older = entry.older;
    // an entry let go links to nothing: one the collector promoted would keep its neighbours alive
    entry.older = undefined;
    entry.newer = undefined;
  }
}
