import type { ToolGateLimits } from '../limits.js';
import { contentBytes } from './json-bytes.js';
import { CallContent, NO_CONTENT, utf8Length } from './content.js';
import type { CallBase, CheckedCall, Settled } from './runtime.js';

// The shape of a proposed call as the gate reads it, and the answers it gives from memory.

export function replay(recorded: Settled): Settled {
  return {
    record: { ...recorded.record, replayed: true },
    ...(recorded.executed === undefined ? {} : { executed: { ...recorded.executed, replayed: true } }),
    ...(recorded.failed === undefined ? {} : { failed: recorded.failed }),
    ran: false,
  };
}

/** The earlier outcome of the same content, answered for a call under a new id without running it. */
export function replayAs(base: CallBase, sameAs: string, earlier: Settled): Settled {
  const again = replay(earlier);
  return {
    record: { ...again.record, id: base.id, requested: base.requested, sameContentAs: sameAs },
    ...(again.executed === undefined
      ? {}
      : { executed: { ...again.executed, id: base.id, sameContentAs: sameAs } }),
    ...(again.failed === undefined ? {} : { failed: { ...again.failed, id: base.id } }),
    ran: false,
  };
}

/** A call that ran although the same content ran before in this turn, marked as such. */
export function marked(settled: Settled, sameAs: string): Settled {
  return {
    ...settled,
    record: { ...settled.record, sameContentAs: sameAs },
    ...(settled.executed === undefined ? {} : { executed: { ...settled.executed, sameContentAs: sameAs } }),
  };
}

/** What a failed call is reported as: its id (`#<index>` when missing or too long) and tool. */
export function baseOf(raw: unknown, index: number, limits: ToolGateLimits): CallBase {
  const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const { id, tool } = value;
  return {
    id: typeof id === 'string' && id !== '' && id.length <= limits.maxCallIdLength ? id : `#${index}`,
    tool: typeof tool === 'string' && tool.length <= 64 ? tool : '',
    requested: { tool: typeof tool === 'string' ? tool : '', args: value['args'] },
    content: NO_CONTENT,
  };
}

/** A call whose shape is refused: what is wrong, and what it is reported as. */
export interface Malformed {
  readonly problem: string;
  readonly base: CallBase;
}

/**
 * The call checked for its shape (one object per call: no wrapper, and the same object is what a
 * refusal reports it as), or what is wrong with it.
 */
export function checkCall(raw: unknown, index: number, limits: ToolGateLimits): CheckedCall | Malformed {
  const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const { id, tool, reason } = value;
  let problem: string | undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) problem = 'it is not an object';
  else if (typeof id !== 'string' || id === '') problem = 'it has no "id"';
  else if (id.length > limits.maxCallIdLength)
    problem = `its id is longer than ${limits.maxCallIdLength} characters`;
  else if (typeof tool !== 'string' || tool === '') problem = 'it has no "tool" name';
  else if (reason !== undefined && typeof reason !== 'string') problem = 'its "reason" is not text';
  if (problem !== undefined) return { problem, base: baseOf(raw, index, limits) };
  const name = tool as string; // checked to be text above, as is the id
  const args = value['args'];
  // Measured, not written (the text is written only when an id repeats or a copy needs it), and
  // first as a bound that reads no string: the exact length only when the bound passes the cap.
  const bound = contentBytes(name, args, false);
  if (bound < 0) return { problem: 'its arguments are not JSON', base: baseOf(raw, index, limits) };
  const callId = id as string; // checked above: text of 1…maxCallIdLength characters
  const call = new ProposedCall(callId, name, args, bound, reason as string | undefined);
  if (bound > limits.maxCallBytes && call.bytes > limits.maxCallBytes) {
    return {
      problem: `its tool name and arguments are larger than ${limits.maxCallBytes} bytes`,
      base: baseOf(raw, index, limits),
    };
  }
  return call;
}

/** A well-formed call, which is its own content: one object per call. */
class ProposedCall extends CallContent implements CheckedCall {
  declare readonly id: string;
  declare readonly requested: CheckedCall['requested'];
  declare readonly idBytes: number;
  declare readonly reason: string | undefined;
  constructor(id: string, tool: string, args: unknown, bound: number, reason: string | undefined) {
    super(tool, args, bound);
    this.id = id;
    this.requested = reason === undefined ? { tool, args } : { tool, args, reason };
    this.idBytes = utf8Length(id);
    this.reason = reason;
  }

  /** The call's content: the call itself. */
  get content(): CallContent {
    return this;
  }
}

/** Shared by every batch of fewer than two calls, which cannot repeat an id. */
const NONE: ReadonlySet<string> = new Set<string>();

export function repeatedIds(calls: readonly unknown[]): ReadonlySet<string> {
  if (calls.length < 2) return NONE;
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const call of calls) {
    const id = typeof call === 'object' && call !== null ? (call as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') continue;
    if (seen.has(id)) repeated.add(id);
    seen.add(id);
  }
  return repeated;
}
