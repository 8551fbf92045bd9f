// Kernel conformance: claims given back (abandon) and listings (list) under crashes, races and clock jumps.
import { type HeldClaim, isParleyError, type JsonValue, type Kernel, type Lease } from '@parley/core';
import type { KernelConformanceCase } from '../kernel-conformance-types.js';
import { fail, LEASE_MS, LEDGER, round, world } from './kernel-world.js';

/** A claim the walk saw granted, and whether it was given back (or may have been: a crash hid it). */
interface Granted {
  readonly claim: HeldClaim;
  givenBack: boolean;
}

export const abandonCase: KernelConformanceCase = {
  name: 'hands a claim given back to the next claimer, never runs an effect twice, and fences the claim given back',
  async run(make, options = {}) {
    const seed = options.seed ?? 1;
    const w = await world(make, seed);
    const ran = new Set<string>(); // keys whose effect ran, or may have (its process died holding it)
    const last = new Map<string, Granted>();
    const givenBack: HeldClaim[] = []; // claims whose abandon was acknowledged: fenced for good
    const keyOf = (n: number): string => `kc:abandon:${seed}:${n}`;

    const claimOnce = async (kernel: Kernel, key: string, id: string, again: boolean): Promise<void> => {
      const now = w.time.now;
      const claimed = await kernel.claim(key, { id: key, digest: 'd', leaseMs: LEASE_MS }); // refusals are data
      if (!('status' in claimed)) return;
      if (claimed.status === 'conflict') fail(`${key} answered conflict for the same content`);
      if (again && claimed.status === 'unknown')
        fail(`${key} was given back, yet the next claim saw unknown`);
      if (claimed.status !== 'claimed') return;
      const before = last.get(key);
      if (ran.has(key)) fail(`the effect of ${key} was handed out again after it ran`);
      if (before !== undefined && !before.givenBack && now < before.claim.expiresAt) {
        fail(`${kernel.owner} claimed ${key} while ${before.claim.owner}'s claim was valid`);
      }
      if (before !== undefined && claimed.claim.token <= before.claim.token) {
        fail(`${key} handed out fencing token ${claimed.claim.token} twice`);
      }
      const granted: Granted = { claim: claimed.claim, givenBack: false };
      last.set(key, granted);
      const roll = w.rand(3);
      if (roll < 2) {
        ran.add(key); // the effect runs; the process may die before its settle lands
        if (roll === 1) await kernel.settle(claimed.claim, id);
        return;
      }
      const back = await kernel.abandon(claimed.claim);
      // store_failed: a crash after the write may have landed it; the walk cannot tell
      if (!back.ok) granted.givenBack ||= back.code === 'store_failed';
      if (!back.ok) return;
      granted.givenBack = true;
      givenBack.push(claimed.claim);
      if (!again) await claimOnce(kernel, key, `${id}.again`, true);
    };

    const op = async (p: number, id: string): Promise<void> => {
      const kernel = w.kernels[p] as Kernel;
      const stale = givenBack.length > 0 && w.rand(4) === 0 ? givenBack[w.rand(givenBack.length)] : undefined;
      if (stale === undefined) return claimOnce(kernel, keyOf(w.rand(3)), id, false);
      const late = w.rand(2) === 0 ? await kernel.settle(stale, id) : await kernel.abandon(stale);
      if (late.ok) fail(`a claim given back (${stale.key}, token ${stale.token}) still wrote`);
    };
    for (let step = 0; step < (options.steps ?? 60); step++) await round(w, step, op);
  },
};

export const listCase: KernelConformanceCase = {
  name: 'lists under a prefix exactly what a read of each key finds, with every acknowledged commit, reporting what the codec refuses',
  async run(make, options = {}) {
    const seed = options.seed ?? 1;
    const w = await world(make, seed);
    const prefix = `kc:list:${seed}:`;
    const keys = [0, 1, 2, 3].map((n) => `${prefix}${n}`);
    const leases: (Lease | undefined)[] = [undefined, undefined, undefined];
    const junk = [
      { kind: 'parley.conformance.other', version: 1, data: ['x'], lease: null, fence: 0, deadlineAt: null },
      {
        kind: LEDGER.kind,
        version: LEDGER.version + 1,
        data: ['x'],
        lease: null,
        fence: 0,
        deadlineAt: null,
      },
      { kind: LEDGER.kind, version: LEDGER.version, data: 7, lease: null, fence: 0, deadlineAt: null },
      'not a kernel record',
    ];
    await w.kernels[0]?.apply(`kc:listed:${seed}:0`, LEDGER, () => ({ value: ['out'], effects: [] }), null);
    const acked = new Map<string, Set<string>>(keys.map((key) => [key, new Set<string>()]));
    const reset = new Set<string>(); // keys deleted or overwritten this round (or maybe: a crash hid it)

    const op = async (p: number, id: string): Promise<void> => {
      const kernel = w.kernels[p] as Kernel;
      const key = keys[w.rand(keys.length)] as string;
      const roll = w.rand(10);
      const lease = leases[p]?.key === key && w.rand(2) === 0 ? leases[p] : undefined;
      const write = lease === undefined ? {} : { lease };
      if (roll < 5) {
        const append = (current: readonly string[] | undefined) => ({
          value: [...(current ?? []), id],
          effects: [],
        });
        const done = await kernel.apply(key, LEDGER, append, null, write); // refusals are data
        if (done.ok) acked.get(key)?.add(id);
      } else if (roll < 7) {
        reset.add(key);
        await kernel.apply(key, LEDGER, () => ({ value: undefined, effects: [] }), null, write);
      } else if (roll < 9) {
        const got = await kernel.acquire(key, LEDGER, { ttlMs: LEASE_MS });
        if (got.ok) leases[p] = got.lease;
      } else if (w.rand(2) === 0) {
        reset.add(key);
        await w.store.set(key, junk[w.rand(junk.length)] as JsonValue); // an index below junk.length
      } else {
        reset.add(key);
        await w.store.delete(key);
      }
    };
    for (let step = 0; step < (options.steps ?? 60); step++) {
      await round(w, step, op);
      for (const key of reset) acked.get(key)?.clear(); // what a reset of this round may have removed
      reset.clear();
      const kernel = w.kernels[w.rand(3)] as Kernel;
      const listed = await kernel.list(prefix, LEDGER);
      if (listed.truncated) fail(`a listing of ${keys.length} keys was truncated`);
      const found = [...listed.records.map((r) => r.key), ...listed.refused.map((r) => r.key)];
      if (found.some((key) => !keys.includes(key))) fail(`the listing of ${prefix} held a key outside it`);
      for (const key of keys) {
        const read = await kernel.read(key, LEDGER).then(
          (committed) => ({ committed, code: undefined }),
          (err: unknown) => ({
            committed: undefined,
            code: isParleyError(err) ? String(err.code) : 'thrown',
          }),
        );
        const record = listed.records.find((r) => r.key === key);
        const refused = listed.refused.find((r) => r.key === key);
        if (read.code !== refused?.code)
          fail(`${key}: read refused ${read.code}, the listing ${refused?.code}`);
        const same =
          JSON.stringify(record?.value) === JSON.stringify(read.committed?.value) &&
          record?.storeVersion === read.committed?.storeVersion;
        if (!same) fail(`${key}: the listing found another record than a read of it`);
        const value = record?.value ?? [];
        for (const ackedId of acked.get(key) ?? []) {
          if (!value.includes(ackedId)) fail(`${key}: the acknowledged commit ${ackedId} was lost`);
        }
        if (new Set(value).size !== value.length) fail(`${key}: a commit was applied twice`);
      }
    }
  },
};
