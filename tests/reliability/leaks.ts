/**
 * Leak check for every test file (a vitest `setupFiles` entry): after each test — and after its
 * `afterEach` hooks, so a test that leaves something pending and closes it in `afterEach` passes —
 * no real timer created during the test is still active, and no `abort` listener added during the
 * test is still attached to a signal that can still abort.
 *
 * Timers: `process.getActiveResourcesInfo()` counts ref'd `Timeout`s before and after each test,
 * but that count also holds the runner's own timers (the hook timeout, its batched task updates),
 * which come and go between the two readings. So the count only triggers the check; the timers
 * blamed are the ones created through `setTimeout` / `setInterval` during the test (wrapped here —
 * the runner keeps its own references to the originals) that are still ref'd and not yet run or
 * cleared. A timer that was `unref()`ed does not keep a process alive and is not counted.
 *
 * Abort listeners: `AbortSignal.prototype.addEventListener` / `removeEventListener` are wrapped to
 * count the live `abort` listeners each test adds. One on a signal that has already aborted can
 * never run again, so it does not count; nor do the runner's listeners on each test's own signal.
 *
 * `PARLEY_LEAK_CHECK=off` turns the check off; `PARLEY_LEAK_CHECK=trace` adds where each leaked
 * timer was created to the failure.
 */
import { beforeEach } from 'vitest';

interface Listener {
  readonly signal: AbortSignal;
  readonly listener: unknown;
  readonly capture: boolean;
  /** The `signal` option of addEventListener: the listener goes away when it aborts. */
  readonly removeWith: AbortSignal | undefined;
  readonly stack: string;
}

interface LeakState {
  /** Abort listeners added since the current test started and not removed since. */
  readonly listeners: Set<Listener>;
  /** Timers created since the current test started that have neither run nor been cleared. */
  readonly timers: Map<NodeJS.Timeout, Error>;
  tracking: boolean;
}

/** A caller inside the test runner, which listens on each test's own signal while it runs. */
const RUNNER_FRAME = /node_modules[\\/](?:@vitest|vitest)[\\/]/;
/** How long a timer still active at the end of a test may take to be cleared by I/O in flight. */
const GRACE_MS = 250;
/**
 * Timers owned by a file-wide fixture rather than by the test that happened to arm them: PGlite
 * emulates Postgres's setitimer with a real timer that every statement re-arms, on a database the
 * example's tests share and close in afterAll.
 */
const FIXTURE_TIMERS = /node_modules[\\/]@electric-sql[\\/]pglite[\\/]/;
const TRACE = process.env.PARLEY_LEAK_CHECK === 'trace';

const STATE = Symbol.for('parley.reliability.leaks');
type Holder = { [STATE]?: LeakState };

/** Installs the wrappers once per worker process (setup files run again for each test file). */
function install(): LeakState {
  const holder = globalThis as Holder;
  const existing = holder[STATE];
  if (existing !== undefined) return existing;
  const state: LeakState = { listeners: new Set(), timers: new Map(), tracking: false };
  holder[STATE] = state;
  wrapAbortListeners(state);
  wrapTimers(state);
  return state;
}

function wrapAbortListeners(state: LeakState): void {
  const proto = AbortSignal.prototype;
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  const captureOf = (options: unknown): boolean =>
    typeof options === 'boolean' ? options : (options as { capture?: boolean } | null)?.capture === true;
  const same = (entry: Listener, signal: AbortSignal, listener: unknown, capture: boolean): boolean =>
    entry.signal === signal && entry.listener === listener && entry.capture === capture;
  Object.defineProperty(proto, 'addEventListener', {
    configurable: true,
    writable: true,
    value: function addEventListener(
      this: AbortSignal,
      type: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | AddEventListenerOptions,
    ): void {
      add.call(this, type, listener, options);
      if (!state.tracking || type !== 'abort' || listener === null || this.aborted) return;
      const capture = captureOf(options);
      for (const entry of state.listeners) if (same(entry, this, listener, capture)) return; // a no-op re-add
      const stack = new Error('abort listener added here').stack ?? '';
      if (RUNNER_FRAME.test(stack.split('\n')[2] ?? '')) return; // the runner's own, on the test's signal
      const removeWith = typeof options === 'object' && options !== null ? options.signal : undefined;
      state.listeners.add({ signal: this, listener, capture, removeWith, stack });
    },
  });
  Object.defineProperty(proto, 'removeEventListener', {
    configurable: true,
    writable: true,
    value: function removeEventListener(
      this: AbortSignal,
      type: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | EventListenerOptions,
    ): void {
      remove.call(this, type, listener, options);
      if (type !== 'abort') return;
      const capture = captureOf(options);
      for (const entry of state.listeners) {
        if (same(entry, this, listener, capture)) state.listeners.delete(entry);
      }
    },
  });
}

function wrapTimers(state: LeakState): void {
  const g = globalThis as unknown as Record<string, (...args: unknown[]) => unknown>;
  const track = (handle: unknown): void => {
    if (state.tracking && typeof handle === 'object' && handle !== null) {
      state.timers.set(handle as NodeJS.Timeout, new Error('timer created here')); // formatted only if leaked
    }
  };
  const forget = (handle: unknown): void => {
    if (typeof handle === 'object' && handle !== null) state.timers.delete(handle as NodeJS.Timeout);
  };
  const wrap = (name: string, wrapped: (original: (...args: unknown[]) => unknown) => unknown): void => {
    const original = g[name] as (...args: unknown[]) => unknown;
    const replacement = wrapped(original) as object;
    // keep setTimeout[util.promisify.custom] and friends
    for (const key of Reflect.ownKeys(original)) {
      if (key === 'length' || key === 'name' || key === 'prototype') continue;
      Object.defineProperty(
        replacement,
        key,
        Object.getOwnPropertyDescriptor(original, key) as PropertyDescriptor,
      );
    }
    g[name] = replacement as (...args: unknown[]) => unknown;
  };
  wrap(
    'setTimeout',
    (original) =>
      function setTimeout(this: unknown, callback: unknown, ...rest: unknown[]): unknown {
        if (typeof callback !== 'function') return original.call(this, callback, ...rest);
        const handle = original.call(
          this,
          function (this: unknown, ...args: unknown[]) {
            forget(handle);
            return (callback as (...a: unknown[]) => unknown).apply(this, args);
          },
          ...rest,
        );
        track(handle);
        return handle;
      },
  );
  wrap(
    'setInterval',
    (original) =>
      function setInterval(this: unknown, ...args: unknown[]): unknown {
        const handle = original.apply(this, args);
        track(handle);
        return handle;
      },
  );
  for (const name of ['clearTimeout', 'clearInterval']) {
    wrap(
      name,
      (original) =>
        function clear(this: unknown, handle: unknown): unknown {
          forget(handle);
          return original.call(this, handle);
        },
    );
  }
}

function activeTimeouts(): number {
  let count = 0;
  for (const resource of process.getActiveResourcesInfo()) if (resource === 'Timeout') count++;
  return count;
}

/** Timers of the test still waiting to run (a cleared or finished timer reports hasRef false too). */
function leakedTimers(state: LeakState): string[] {
  const out: string[] = [];
  for (const [timer, created] of state.timers) {
    if (typeof timer.hasRef !== 'function' || !timer.hasRef()) continue;
    const stack = created.stack ?? '';
    if (!FIXTURE_TIMERS.test(stack)) out.push(stack);
  }
  return out;
}

/** Listeners that could still run: their signal has not aborted and nothing removed them. */
function leakedListeners(state: LeakState): Listener[] {
  return [...state.listeners].filter((entry) => !entry.signal.aborted && entry.removeWith?.aborted !== true);
}

if (process.env.PARLEY_LEAK_CHECK !== 'off') {
  const state = install();
  beforeEach((context) => {
    state.listeners.clear();
    state.timers.clear();
    state.tracking = true;
    const before = activeTimeouts();
    // onTestFinished runs after the afterEach hooks, so what they clean up is not reported.
    context.onTestFinished(async () => {
      // Let the test's own follow-up work (a prompt sent after an await…) run, so what it starts is
      // counted here and not blamed on the next test.
      for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      state.tracking = false;
      // A timer a library clears on its own I/O (ioredis drops a socket and clears its 2 s fallback
      // on 'close') gets a short real grace period; a timer nobody will clear is still there after.
      for (let waited = 0; waited < GRACE_MS && leakedTimers(state).length > 0; waited += 5) {
        await new Promise<void>((resolve) => setTimeout(resolve, 5));
      }
      const after = activeTimeouts();
      const timers = leakedTimers(state);
      const listeners = leakedListeners(state);
      state.listeners.clear();
      state.timers.clear();
      const problems: string[] = [];
      if (timers.length > 0) {
        const where = TRACE ? `:\n${timers.join('\n')}` : ' (PARLEY_LEAK_CHECK=trace shows where)';
        problems.push(
          `${timers.length} real timer(s) left active (Timeout resources: ${before} before, ${after} after)${where}`,
        );
      }
      if (listeners.length > 0) {
        problems.push(
          `${listeners.length} abort listener(s) left attached; the first was added at:\n${listeners[0]?.stack}`,
        );
      }
      if (problems.length > 0) throw new Error(`Leak check: ${problems.join('; ')}`);
    });
  });
}
