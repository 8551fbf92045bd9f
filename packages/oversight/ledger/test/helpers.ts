import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
export { until } from '../../../../tests/support/turns.js';
import { createLedger, type Ledger, type LedgerInput, type LedgerOptions } from '../src/index.js';

export const DIGEST = 'ab'.repeat(32);
export const PRIVATE_KEY = '1f'.repeat(32);

export function setup(options: Partial<LedgerOptions> = {}): {
  clock: ManualClock;
  store: Store;
  ledger: Ledger;
} {
  const clock = createManualClock({ now: 1_700_000_000_000 });
  const store = options.store ?? createMemoryStore({ clock });
  return { clock, store, ledger: createLedger({ store, clock, ...options }) };
}

/** The facts of one confirmed and run action, in order. */
export function confirmedRun(id = 'c1'): LedgerInput[] {
  return [
    {
      kind: 'request',
      ref: `r-${id}`,
      actionName: 'sql.delete',
      actionDigest: DIGEST,
      summary: 'DELETE FROM orders',
      requester: 'alice',
      approvers: 'requester',
    },
    { kind: 'prompt_delivered', confirmationId: id, step: 1, attempt: 1, messageId: 'm1' },
    { kind: 'answer', confirmationId: id, authorId: 'alice', via: 'reply', text: '确认', eventId: 'e1' },
    {
      kind: 'decision',
      confirmationId: id,
      actionDigest: DIGEST,
      outcome: 'confirmed',
      reason: 'reply',
      decidedBy: 'alice',
    },
    { kind: 'authorization', confirmationId: id, actionDigest: DIGEST },
    { kind: 'effect', confirmationId: id, outcome: 'succeeded' },
  ];
}

/** Appends every input, failing the test on a refusal. */
export async function appendAll(
  ledger: Ledger,
  session: string,
  inputs: readonly LedgerInput[],
): Promise<void> {
  for (const input of inputs) {
    const result = await ledger.append(session, input);
    if (!result.ok) throw new Error(`append refused: ${result.code} ${result.message}`);
  }
}

/** Exported lines of a session, without the trailing empty line. */
export async function linesOf(ledger: Ledger, session: string): Promise<string[]> {
  return (await ledger.exportLines(session)).trim().split('\n');
}
