// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/ledger, compiled and run; a "// value" comment after console.log is asserted.
// Generated from the sources' TSDoc; keep in step with them.
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  type AppendResult,
  type ChainPoint,
  type ConfirmationRecorder,
  createLedger,
  DEFAULT_MAX_ENTRIES,
  DEFAULT_MAX_ENTRY_BYTES,
  DEFAULT_RETENTION_MS,
  ENTRY_KINDS,
  type EntryKind,
  GENESIS_HASH,
  LEDGER_ERROR_CODES,
  LEDGER_FORMAT_VERSION,
  type Ledger,
  type LedgerEntry,
  LedgerError,
  type LedgerErrorCode,
  type LedgerInput,
  type LedgerOptions,
  type LedgerSigningKey,
  type PruneResult,
  matchesRedacted,
  publicKeyOf,
  type RecordConfirmationsOptions,
  type Redacted,
  recordConfirmations,
  redactValue,
  type LedgerRunResult,
  readStoredChain,
  type StoredChain,
  TAMPER_KINDS,
  type TamperKind,
  type VerifyOptions,
  type VerifyResult,
  verifyLedger,
} from '../src/index.js';
import { expectPrinted, log } from '../../../../tests/support/printed.js';

describe('@parley/ledger examples', () => {
  it('errors (errors.ts)', () => {
    log(LEDGER_ERROR_CODES.includes('no_consent'));
    expectPrinted('true');
    const code: LedgerErrorCode = 'chain_full';
    const err = new LedgerError('no_consent', 'No authorization recorded for c1', {
      details: { confirmationId: 'c1' },
    });
    log(isParleyError(err, 'no_consent'), err.details.confirmationId);
    expectPrinted('true c1');
  });

  it('entry constants and types (entry.ts)', () => {
    log(LEDGER_FORMAT_VERSION);
    expectPrinted('1');
    log(GENESIS_HASH.length);
    expectPrinted('64');
    log(ENTRY_KINDS.join(' '));
    expectPrinted('request prompt_delivered answer decision authorization effect');
    const kind: EntryKind = 'decision';
    const summary: Redacted = { redacted: 'sha256:9f2c…' };
    const input: LedgerInput = { kind: 'effect', confirmationId: 'c1', outcome: 'succeeded' };
    const seen = (entry: LedgerEntry): string => `${entry.seq} ${entry.body.kind}`;
  });

  it('signing (signing.ts)', () => {
    const key: LedgerSigningKey = { keyId: 'prod-2026', privateKey: '1f'.repeat(32) };
    log(publicKeyOf('1f'.repeat(32)).length);
    expectPrinted('64');
  });

  it('redaction (redact.ts)', () => {
    log(redactValue('DELETE FROM orders', 'salt-1').redacted.startsWith('sha256:'));
    expectPrinted('true');
    const digest = redactValue('确认', 'salt-1');
    log(matchesRedacted('确认', 'salt-1', digest), matchesRedacted('取消', 'salt-1', digest));
    expectPrinted('true false');
  });

  it('ledger constants and types (ledger.ts)', async () => {
    log(DEFAULT_MAX_ENTRIES);
    expectPrinted('200');
    log(DEFAULT_MAX_ENTRY_BYTES);
    expectPrinted('4096');
    log(DEFAULT_RETENTION_MS / 86_400_000);
    expectPrinted('400');
    const options: LedgerOptions = { store: createMemoryStore(), redact: { salt: 'per-deployment-secret' } };
    const refused: AppendResult = {
      ok: false,
      code: 'no_consent',
      message: 'no authorization for c1 is recorded',
    };
    async function count(ledger: Ledger): Promise<number> {
      return (await ledger.entries('chat-1')).length;
    }
    expect(await count(createLedger(options))).toBe(0);
    const pruned: PruneResult = { ok: true, removed: 4, anchor: { seq: 3, hash: 'ab'.repeat(32) } };
    expect(pruned.ok && pruned.anchor?.seq).toBe(3);
  });

  it('createLedger (ledger.ts)', async () => {
    const clock = createManualClock({ now: 1_700_000_000_000 });
    const ledger = createLedger({ store: createMemoryStore({ clock }), clock });
    const appended = await ledger.append('chat-1', {
      kind: 'decision',
      confirmationId: 'c1',
      actionDigest: 'ab'.repeat(32),
      outcome: 'confirmed',
      reason: 'reply',
    });
    log(appended.ok && appended.entry.seq);
    expectPrinted('0');
  });

  it('verify types (verify.ts)', () => {
    log(TAMPER_KINDS.includes('forked'));
    expectPrinted('true');
    const kind: TamperKind = 'deleted';
    const head: ChainPoint = { seq: 5, hash: 'ab'.repeat(32) };
    const options: VerifyOptions = { publicKeys: { 'prod-2026': 'cd'.repeat(32) } };
    const bad: VerifyResult = {
      ok: false,
      code: 'edited',
      line: 3,
      seq: 2,
      message: 'entry 2 does not match its hash',
    };
  });

  it('verifyLedger (verify.ts)', async () => {
    const ledger = createLedger({ store: createMemoryStore() });
    for (const outcome of ['confirmed', 'cancelled']) {
      await ledger.append('chat-1', {
        kind: 'decision',
        confirmationId: outcome,
        actionDigest: 'ab'.repeat(32),
        outcome,
        reason: 'reply',
      });
    }
    const lines = (await ledger.exportLines('chat-1')).trim().split('\n');
    log(verifyLedger(lines).ok);
    expectPrinted('true');
    log(verifyLedger([lines[1] as string]).ok === false && 'deleted');
    expectPrinted('deleted');
  });

  it('recordConfirmations types (confirm.ts)', () => {
    const options: RecordConfirmationsOptions = { onRefused: (refusal) => console.error(refusal.message) };
    const refused: LedgerRunResult<string> = {
      ok: false,
      code: 'not_confirmed',
      message: 'the gate refused: not_confirmed',
    };
    const stopAll = (recorders: ConfirmationRecorder[]): void => {
      for (const r of recorders) r.stop();
    };
  });

  it('recordConfirmations (confirm.ts)', async () => {
    const store = createMemoryStore();
    const gate = createConfirmGate({ bus: createMessageBus(), store });
    const recorder = recordConfirmations(gate, createLedger({ store }));
    async function deleteOrders(sessionKey: string, requester: string, sql: string): Promise<string> {
      const action = { name: 'sql.delete', args: { sql } };
      const decision = await recorder.request({ sessionKey, requester, action, summary: sql });
      const ran = await recorder.run(decision, action, async () => 'deleted');
      return ran.ok ? ran.value : `not run: ${ran.code}`;
    }
    expect(typeof deleteOrders).toBe('function');
    recorder.stop();
    await gate.close();
  });
  it('StoredChain (stored.ts)', async () => {
    const chain: StoredChain = { session: 'chat-1', lines: [], anchor: undefined };
  });

  it('readStoredChain (stored.ts)', async () => {
    const store = createMemoryStore();
    const ledger = createLedger({ store });
    await ledger.append('chat-1', {
      kind: 'decision',
      confirmationId: 'c1',
      actionDigest: 'ab'.repeat(32),
      outcome: 'confirmed',
      reason: 'reply',
    });
    const chain = readStoredChain(await store.get('parley:ledger:chat-1'));
    log(chain?.lines.length, chain && verifyLedger(chain.lines).ok);
    expectPrinted('1 true');
  });
});
