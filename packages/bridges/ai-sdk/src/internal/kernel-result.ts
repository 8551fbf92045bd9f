import type { KernelRefusal } from '@parley/core';
import { AiSdkBridgeError } from '../errors.js';

/** @internal Whether a step's write won; a refusal other than a lost race is thrown as an {@link AiSdkBridgeError}. */
export function won(
  result: { readonly ok: true; readonly effects: readonly boolean[] } | KernelRefusal,
): boolean {
  return effectsOf(result, [false])[0] === true;
}

/**
 * @internal The effects of a step the kernel applied, or `lost` when its write kept losing races
 * (without `lost`, that is thrown as `store_failed` too: the write is not known to be made); any
 * other refusal is thrown as an {@link AiSdkBridgeError}.
 */
export function effectsOf<X>(
  result: { readonly ok: true; readonly effects: readonly X[] } | KernelRefusal,
  lost?: readonly X[],
): readonly X[] {
  if (result.ok) return result.effects;
  if (result.code === 'write_conflict' && lost !== undefined) return lost;
  throw bridgeError(result.code, result.message, result.key);
}

/** @internal The bridge's error for a kernel code: a refused record keeps its code, anything else is `store_failed`. */
export function bridgeError(code: string, message: string, key: string): AiSdkBridgeError {
  const kept = code === 'corrupt_record' || code === 'record_version' ? code : 'store_failed';
  return new AiSdkBridgeError(kept, message, { details: { key, code } });
}
