import { canonicalJson as canonicalText, isParleyError, type JsonValue } from '@parley/core';
import { ConfirmError } from './errors.js';
import { sha256Hex } from './internal/sha256.js';

/**
 * The action a confirmation is about: a name (the action kind, e.g. a tool name) and its
 * arguments as JSON. The gate binds its decision to a digest of both.
 *
 * @example
 * ```ts
 * import type { ConfirmAction } from '@parley/confirm';
 *
 * const action: ConfirmAction = { name: 'sql.delete', args: { table: 'orders', where: { status: 1 } } };
 * ```
 */
export interface ConfirmAction {
  readonly name: string;
  /** JSON arguments; `{}` when omitted. */
  readonly args?: JsonValue | undefined;
}

/**
 * Writes an action's arguments as canonical JSON (core's `canonicalJson`), refusing what is not JSON
 * with `ConfirmError` `invalid_action`.
 *
 * @internal
 */
export function canonicalArgs(value: JsonValue): string {
  try {
    return canonicalText(value);
  } catch (error) {
    if (!isParleyError(error, 'json_not_serializable') && !isParleyError(error, 'json_too_deep')) throw error;
    throw new ConfirmError('invalid_action', 'The action arguments are not JSON', {
      details: error.details,
      cause: error,
    });
  }
}

/**
 * Computes the SHA-256 digest (hex) of an action's name and canonical arguments.
 *
 * Use it to tell whether two actions are the same one: the gate stores it with every confirmation
 * and `authorize` recomputes it from the arguments about to run.
 *
 * @throws ConfirmError `invalid_action` for an empty name or arguments that are not JSON.
 * @example
 * ```ts
 * import { digestAction } from '@parley/confirm';
 *
 * const a = await digestAction({ name: 'drop', args: { table: 't', cascade: false } });
 * const b = await digestAction({ name: 'drop', args: { cascade: false, table: 't' } });
 * console.log(a === b, a.length); // true 64
 * ```
 */
export async function digestAction(action: ConfirmAction): Promise<string> {
  return hashAction(action).digest;
}

/**
 * The digest of an action and its canonical arguments, computed synchronously.
 *
 * @internal
 */
export function hashAction(action: ConfirmAction): { readonly digest: string; readonly args: string } {
  if (typeof action?.name !== 'string' || action.name.length === 0) {
    throw new ConfirmError('invalid_action', 'An action needs a non-empty name', {
      details: { name: String(action?.name) },
    });
  }
  const args = canonicalArgs(action.args === undefined ? {} : action.args); // null is an argument, not {}
  const digest = sha256Hex(`${JSON.stringify(action.name)}\n${args}`);
  return { digest, args };
}
