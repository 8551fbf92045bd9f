// The faults a recording transport or hub injects: which messages they hit, and how many are left.
import { TestingError } from '../errors.js';
import type { FaultOptions, TransportFault } from '../transport-types.js';

/** @internal One injected fault and how many more messages it hits. */
export interface WireFault<TMessage, TName extends string> {
  readonly kind: TransportFault;
  left: number;
  readonly delayMs: number;
  readonly options: FaultOptions<TMessage, TName>;
}

/** @internal The injected faults of one wire, in the order they were added. */
export interface WireFaults<TMessage, TName extends string> {
  /** @throws TestingError `invalid_argument` when `times` is not a positive integer. */
  add(kind: TransportFault, fault: FaultOptions<TMessage, TName>, delayMs?: number): void;
  /** The first fault with messages left that matches this one, which it uses up one of. */
  take(from: TName, to: TName, message: TMessage): WireFault<TMessage, TName> | undefined;
}

/** @internal Creates the fault list of the wire `label` names. */
export function createWireFaults<TMessage, TName extends string>(label: string): WireFaults<TMessage, TName> {
  const faults: WireFault<TMessage, TName>[] = [];
  return {
    add(kind, fault, delayMs = 0) {
      const times = fault.times ?? 1;
      if (!Number.isInteger(times) || times < 1) {
        throw new TestingError(
          'invalid_argument',
          `${label}.${kind}: times must be a positive integer, got ${times}`,
          {
            details: { times },
          },
        );
      }
      faults.push({ kind, left: times, delayMs, options: fault });
    },
    take(from, to, message) {
      const fault = faults.find(
        (f) =>
          f.left > 0 &&
          (f.options.from === undefined || f.options.from === from) &&
          (f.options.to === undefined || f.options.to === to) &&
          (f.options.match?.(message) ?? true),
      );
      if (fault !== undefined) fault.left--;
      return fault;
    },
  };
}
