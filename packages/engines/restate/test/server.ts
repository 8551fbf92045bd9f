// The tests' Restate server is the /testing entry's (a real restate-server on loopback), and a poll
// that names what it waited for.
import { freeLoopbackPorts, type LocalRestateServer, startRestateServer } from '../src/testing.js';

export type RestateServer = LocalRestateServer;
export const startRestate = startRestateServer;
export const freePorts = freeLoopbackPorts;

/**
 * Polls `check` until it returns true; fails after `ms` naming what it waited for. The pause between
 * polls is a real timer because the other side is a real server process.
 */
export async function waitFor(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await check()) return;
    if (performance.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
