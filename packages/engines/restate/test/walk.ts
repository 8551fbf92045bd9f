// The seeded walk of the conformance tests on a real Restate server: three callers ("processes")
// racing through the ingress, a random source that replays from its seed, rounds of one or two ops.
import { http } from './http.js';
import { waitFor } from './server.js';

/** A fixed-seed LCG (the same generator as @parley/testing's kernel walks): a walk replays from its seed. */
export function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n: number): number => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return (state >>> 8) % n;
  };
}

/** Runs one or two operations at once, each given a random process (0–2) and a step-unique id. */
export async function round(
  rand: (n: number) => number,
  step: number,
  op: (p: number, id: string) => Promise<void>,
): Promise<void> {
  const racers = 1 + rand(2);
  const picks = Array.from({ length: racers }, (_, i) => [rand(3), `${step}-${i}`] as const);
  await Promise.all(picks.map(([p, id]) => op(p, id)));
}

/** Fails a walk with what broke. */
export function broken(message: string): never {
  throw new Error(`conformance on Restate: ${message}`);
}

/**
 * Waits until every durable timer due by `dueBy` (epoch ms) has fired and no invocation is in flight:
 * a walk ends with the endpoint idle, so nothing of it runs into the next test. Timers due later
 * stay scheduled.
 */
export async function idle(adminUrl: string, dueBy: number): Promise<void> {
  await waitFor(
    `the walk's timers due by ${new Date(dueBy).toISOString()} to come due`,
    20_000,
    async () => Date.now() > dueBy,
  );
  const query =
    "SELECT count(*) AS busy FROM sys_invocation WHERE status NOT IN ('completed', 'suspended', 'scheduled')";
  await waitFor('every invocation of the walk in flight to finish', 20_000, async () => {
    const answer = await http('POST', `${adminUrl}/query`, { query }, { accept: 'application/json' });
    if (answer.status !== 200) return false; // partitions still starting after a restart
    return (JSON.parse(answer.text) as { rows: { busy: number }[] }).rows[0]?.busy === 0;
  });
}
