// The shapes of the durable kernel's conformance suite (types only).
import type { Store } from '@parley/core';

/**
 * A fresh store for one kernel conformance walk (empty, or with keys no other walk uses).
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import type { KernelConformanceSubject } from '@parley/testing';
 *
 * const subject: KernelConformanceSubject = { store: createMemoryStore() };
 * ```
 */
export interface KernelConformanceSubject {
  readonly store: Store;
}

/**
 * One model-based check of the kernel over a store: `run` walks `steps` random operations of three
 * kernels (processes) from `seed`, and throws (TestingError `assertion_failed`) on a broken promise.
 *
 * @example
 * ```ts
 * import { kernelConformanceCases, type KernelConformanceCase } from '@parley/testing';
 *
 * const names = kernelConformanceCases().map((c: KernelConformanceCase) => c.name);
 * ```
 */
export interface KernelConformanceCase {
  /** A present-tense sentence naming the promise; stable across releases. */
  readonly name: string;
  run(
    make: () => Promise<KernelConformanceSubject>,
    options?: { readonly seed?: number; readonly steps?: number },
  ): Promise<void>;
}
