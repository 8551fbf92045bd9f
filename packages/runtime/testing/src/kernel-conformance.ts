// The durable kernel's conformance suite: model-based walks of several kernels over one store.
import type { JsonValue, Kernel, Lease } from '@parley/core';
import type { KernelConformanceCase } from './kernel-conformance-types.js';
import { abandonCase, listCase } from './internal/kernel-cases.js';
import { fail, LEASE_MS, LEDGER, round, world } from './internal/kernel-world.js';

/**
 * Lists the model-based checks of the durable kernel: three kernels over one store, a store that
 * crashes (throws before or after a write) from its Nth write on, failing writes, late processes,
 * and a clock that jumps forwards and backwards. They check that no effect runs twice, no committed
 * state is lost, no lease or claim is taken while its owner's lease is valid, a fenced (stale)
 * holder's write fails, a claim given back (`abandon`) is claimable again and fenced for its old
 * holder, and `list` finds under a prefix exactly what a read of each key finds.
 *
 * Run each with several seeds (a property-test runner such as fast-check gives them), on every
 * store the kernel runs on: the memory store, Redis, Postgres.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import { kernelConformanceCases } from '@parley/testing';
 *
 * for (const check of kernelConformanceCases()) {
 *   await check.run(async () => ({ store: createMemoryStore() }), { seed: 42, steps: 40 }); // throws on a broken promise
 * }
 * console.log(kernelConformanceCases().length); // 4
 * ```
 */
export function kernelConformanceCases(): readonly KernelConformanceCase[] {
  return CASES;
}

const CASES: readonly KernelConformanceCase[] = [
  {
    name: 'loses no acknowledged commit, takes no valid lease, and fences every stale holder',
    async run(make, options = {}) {
      const w = await world(make, options.seed ?? 1);
      const key = `kc:ledger:${options.seed ?? 1}`;
      const acked = new Set<string>();
      const leases: (Lease | undefined)[] = [undefined, undefined, undefined];
      let holder: Lease | undefined; // the newest lease the model knows was granted
      const op = async (p: number, id: string): Promise<void> => {
        const kernel = w.kernels[p] as Kernel;
        const known = holder;
        const now = w.time.now;
        if (w.rand(4) === 0) {
          const got = await kernel.acquire(key, LEDGER, { ttlMs: LEASE_MS }).catch(() => undefined);
          if (got?.ok !== true) return;
          if (known !== undefined && now < known.expiresAt)
            fail(`${kernel.owner} took the lease while ${known.owner}'s was valid`);
          if (holder !== undefined && got.lease.token <= holder.token)
            fail('a fencing token was handed out twice');
          holder = got.lease;
          leases[p] = got.lease;
          return;
        }
        const lease = w.rand(3) === 0 ? undefined : leases[p];
        const append = (current: readonly string[] | undefined) => ({
          value: [...(current ?? []), id],
          effects: [],
        });
        const done = await kernel.apply(key, LEDGER, append, null, lease === undefined ? {} : { lease });
        if (!done.ok) return;
        acked.add(id);
        if (lease !== undefined && known !== undefined && lease.token < known.token) {
          fail(`a stale holder (token ${lease.token} < ${known.token}) wrote`);
        }
        if (lease !== undefined && now >= lease.expiresAt)
          fail(`a write under an expired lease (token ${lease.token}) landed`);
        if (lease === undefined && known !== undefined && now < known.expiresAt) {
          fail(`${kernel.owner} wrote without the lease while ${known.owner}'s was valid`);
        }
      };
      for (let step = 0; step < (options.steps ?? 60); step++) {
        await round(w, step, op);
        const now = await w.kernels[0]?.read(key, LEDGER);
        const seen = new Set(now?.value ?? []);
        for (const ackedId of acked)
          if (!seen.has(ackedId)) fail(`the acknowledged commit ${ackedId} was lost`);
        if (seen.size !== (now?.value.length ?? 0)) fail('a commit was applied twice');
      }
    },
  },
  {
    name: 'runs no claimed effect twice and never re-runs an unknown outcome',
    async run(make, options = {}) {
      const w = await world(make, options.seed ?? 1);
      const ran = new Map<string, number>();
      const results = new Map<string, JsonValue>();
      const keyOf = (n: number): string => `kc:claim:${options.seed ?? 1}:${n}`;
      const op = async (p: number, id: string): Promise<void> => {
        const kernel = w.kernels[p] as Kernel;
        const key = keyOf(w.rand(3));
        const claimed = await kernel
          .claim(key, { id: key, digest: 'd', leaseMs: LEASE_MS })
          .catch(() => undefined);
        if (claimed === undefined || !('status' in claimed)) return;
        if (claimed.status === 'conflict') fail(`${key} answered conflict for the same content`);
        if (claimed.status === 'settled' && results.get(key) !== claimed.result) {
          fail(`${key} answered a result it was never settled with`);
        }
        if (claimed.status !== 'claimed') return;
        ran.set(key, (ran.get(key) ?? 0) + 1);
        if ((ran.get(key) ?? 0) > 1) fail(`the effect of ${key} was claimed to run twice`);
        if (w.rand(3) === 0) return; // the process dies before it settles: the outcome stays unknown
        results.set(key, id); // the result the effect produced, whether or not its settle lands
        await kernel.settle(claimed.claim, id).catch(() => undefined); // a crash may land it or not
      };
      for (let step = 0; step < (options.steps ?? 60); step++) await round(w, step, op);
    },
  },
  abandonCase,
  listCase,
];
