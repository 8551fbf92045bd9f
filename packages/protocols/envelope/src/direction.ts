// Who may send an intent to whom: the direction rules of an intent and their check.
import type { AgentDirectory } from './directory.js';
import { EnvelopeError } from './errors.js';

/**
 * Who may send an intent to whom, in object form. Every field that is present must hold.
 *
 * @example
 * ```ts
 * import type { DirectionRule } from '@parley/envelope';
 *
 * // review_verdict: a reviewer answers the agent that spawned it
 * const rule: DirectionRule = { fromRole: 'reviewer', to: 'parent' };
 * ```
 */
export interface DirectionRule {
  /** The role the sender must have. */
  readonly fromRole?: string;
  /** The role the recipient must have. */
  readonly toRole?: string;
  /** `parent`: the recipient spawned the sender (child → parent); `child`: the sender spawned the recipient. */
  readonly to?: 'parent' | 'child';
}

/**
 * The direction of an intent: `down` (parent → child), `up` (child → parent), `any`, or a
 * {@link DirectionRule} naming roles.
 *
 * @example
 * ```ts
 * import type { Direction } from '@parley/envelope';
 *
 * const escalate: Direction = { toRole: 'ceo' };
 * const assign: Direction = 'down';
 * ```
 */
export type Direction = 'down' | 'up' | 'any' | DirectionRule;

/** A refusal of a direction check. @internal */
export interface DirectionRefusal {
  readonly code: 'unknown_agent' | 'wrong_direction';
  readonly message: string;
}

/**
 * Checks `from → to` against a rule. With a directory, agents must be known and roles and
 * parent/child relations come from it; without one, an agent's role is its id and relations are
 * left to the topology.
 * @internal
 */
export function checkDirection(
  rule: DirectionRule,
  intent: string,
  from: string,
  to: string,
  directory: AgentDirectory | undefined,
): DirectionRefusal | undefined {
  let fromRole = from;
  let toRole = to;
  if (directory !== undefined) {
    const sender = directory.agent(from);
    if (sender === undefined) return { code: 'unknown_agent', message: `The sender "${from}" is not known` };
    const recipient = directory.agent(to);
    if (recipient === undefined)
      return { code: 'unknown_agent', message: `The recipient "${to}" is not known` };
    fromRole = sender.role;
    toRole = recipient.role;
    if (rule.to === 'parent' && sender.parent !== to) {
      return {
        code: 'wrong_direction',
        message: `"${intent}" goes from a child to its parent; "${to}" is not the parent of "${from}"`,
      };
    }
    if (rule.to === 'child' && recipient.parent !== from) {
      return {
        code: 'wrong_direction',
        message: `"${intent}" goes from a parent to its child; "${to}" is not a child of "${from}"`,
      };
    }
  }
  if (rule.fromRole !== undefined && fromRole !== rule.fromRole) {
    return {
      code: 'wrong_direction',
      message: `"${intent}" must come from a ${rule.fromRole}, not "${from}"`,
    };
  }
  if (rule.toRole !== undefined && toRole !== rule.toRole) {
    return { code: 'wrong_direction', message: `"${intent}" must go to a ${rule.toRole}, not "${to}"` };
  }
  return undefined;
}

const RULE_KEYS: readonly string[] = ['fromRole', 'toRole', 'to'];

/** @internal A direction as its rule object, checked; `down`, `up` and `any` as the rules they stand for. */
export function normaliseDirection(intent: string, direction: unknown): DirectionRule {
  if (direction === 'down') return { to: 'child' };
  if (direction === 'up') return { to: 'parent' };
  if (direction === 'any') return {};
  if (typeof direction !== 'object' || direction === null || Array.isArray(direction)) {
    throw invalidDirection(`The direction of "${intent}" must be "down", "up", "any" or a rule object`, {
      intent,
    });
  }
  const rule = direction as Record<string, unknown>;
  for (const key of Object.keys(rule)) {
    if (!RULE_KEYS.includes(key))
      throw invalidDirection(`Unknown direction field "${key}" in "${intent}"`, { intent });
  }
  for (const key of ['fromRole', 'toRole'] as const) {
    const role = rule[key];
    if (role !== undefined && (typeof role !== 'string' || role === '')) {
      throw invalidDirection(`${key} of "${intent}" must be a non-empty string`, { intent });
    }
  }
  if (rule.to !== undefined && rule.to !== 'parent' && rule.to !== 'child') {
    throw invalidDirection(`"to" of "${intent}" must be "parent" or "child"`, { intent });
  }
  return { ...(rule as DirectionRule) };
}

function invalidDirection(message: string, details: Record<string, unknown>): EnvelopeError {
  return new EnvelopeError('invalid_definition', message, { details });
}
