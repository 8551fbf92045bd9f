// Verifying an exported ledger must be linear in its size (issue 34): the same chain shape at 100
// and at 800 entries; linear work takes about 8× as long, quadratic about 64×.
import { createMemoryStore } from '@parley/core';
import { createLedger, verifyLedger } from '@parley/ledger';
import { suite } from '../lib.js';

/** An exported chain of `n` delivered prompts (each about 300 bytes), and the verification of it. */
const chainOf = (n: number) => async () => {
  const ledger = createLedger({ store: createMemoryStore(), maxEntries: n });
  for (let attempt = 1; attempt <= n; attempt++) {
    await ledger.append('feishu:g1', { kind: 'prompt_delivered', confirmationId: 'cfm_1', step: 1, attempt });
  }
  const lines = await ledger.exportLines('feishu:g1');
  return () => {
    const result = verifyLedger(lines);
    if (!result.ok || result.entries !== n) throw new Error('the chain did not verify');
    return result;
  };
};

suite('ledger: verifyLedger, 8× the entries', {
  cases: { '100 entries': chainOf(100), '800 entries': chainOf(800) },
  goals: [{ case: '800 entries', vs: '100 entries', slowerByAtMost: 16 }],
});
