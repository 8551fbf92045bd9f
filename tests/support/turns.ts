// Waiting for what in-process I/O (Web Crypto, a store's promise) finishes without time passing on a
// manual clock: yield to the event loop turn by turn, and fail naming what was awaited.

/** Yields to pending I/O until `ready()` holds; fails naming `what` after `turns` event-loop turns. */
export async function until(
  what: string,
  ready: () => boolean | Promise<boolean>,
  turns = 100,
): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    if (await ready()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}
