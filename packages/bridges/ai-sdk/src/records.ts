import {
  canonicalJson,
  type Clock,
  createKernel,
  createOwnerId,
  type JsonValue,
  type KernelStep,
  type RecordCodec,
  type Store,
} from '@parley/core';
import { bridgeError, won } from './internal/kernel-result.js';

/**
 * A tool approval the bridge is waiting on (or has answered), kept in the store under the call id so
 * that a restarted process or another replica can resume the conversation, once.
 *
 * @internal
 */
export interface ApprovalRecord {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly tool: string;
  /** The validated arguments the person is asked about (the action the decision is bound to). */
  readonly args: JsonValue;
  readonly sessionKey: string;
  readonly requester: string;
  /** The `generateText` response messages that carry the approval request. */
  readonly messages: JsonValue;
  /** The host's own data given to `approve`, handed back on resume. */
  readonly state: JsonValue;
  readonly createdAt: number;
  /** Set once, by whoever takes the decision: the waiting `approve` or a resume. */
  readonly decisionId?: string;
}

/** @internal The bridge's approval records, kept through the durable kernel. */
export interface ApprovalRecords {
  /**
   * The record of a tool call, or `undefined`.
   * @throws AiSdkBridgeError `corrupt_record`, `record_version`, `store_failed`.
   */
  read(toolCallId: string): Promise<ApprovalRecord | undefined>;
  /** Stores the record of a tool call (a stored record the codec refuses is thrown, never overwritten). */
  write(record: ApprovalRecord): Promise<void>;
  /** Writes the decision id once; true for the caller that wrote it (it continues the conversation). */
  claim(toolCallId: string, decisionId: string): Promise<boolean>;
  /** The oldest unclaimed record a decision answers: same session, tool and canonical arguments. */
  findUnclaimed(match: {
    readonly sessionKey: string;
    readonly tool: string;
    readonly args: JsonValue;
  }): Promise<ApprovalRecord | undefined>;
}

const isString = (value: unknown): boolean => typeof value === 'string';

/** @internal The codec of an approval record (format 1). */
const APPROVALS: RecordCodec<ApprovalRecord> = {
  kind: 'parley.ai-sdk.approval',
  version: 1,
  decode: (data) => {
    const checks: Readonly<Record<string, (value: unknown) => boolean>> = {
      ...{
        approvalId: isString,
        toolCallId: isString,
        tool: isString,
        sessionKey: isString,
        requester: isString,
      },
      ...{ args: (v) => v !== undefined, state: (v) => v !== undefined, messages: Array.isArray },
      createdAt: Number.isFinite,
      decisionId: (v) => v === undefined || isString(v),
    };
    const object = typeof data === 'object' && data !== null && !Array.isArray(data);
    const ok = object && Object.entries(checks).every(([field, check]) => check(Reflect.get(data, field)));
    return ok ? (data as unknown as ApprovalRecord) : undefined; // every field checked
  },
  encode: (value) => ({ ...value }) as unknown as JsonValue, // plain JSON
};

/**
 * @internal The approval records under `prefix`: checked by their codec when read (a corrupt or
 * other-version record is refused with a typed error, never used or overwritten), each write one
 * compare-and-set of a step run on the fresh record, living `ttlMs` after their last write.
 */
export function createApprovalRecords(
  store: Store,
  prefix: string,
  ttlMs: number,
  clock: Clock,
): ApprovalRecords {
  const kernel = createKernel({ store, clock, owner: createOwnerId('ai-sdk') });
  const keyOf = (toolCallId: string): string => `${prefix}approval:${toolCallId}`;
  return {
    async read(toolCallId) {
      const key = keyOf(toolCallId);
      try {
        return (await kernel.read(key, APPROVALS))?.value;
      } catch (error) {
        throw bridgeError(String(Reflect.get(Object(error), 'code')), String(error), key); // a KernelError
      }
    },
    async write(record) {
      const put: KernelStep<ApprovalRecord, ApprovalRecord, boolean> = (_, next, now) => ({
        value: next,
        effects: [true],
        deadlineAt: now + ttlMs,
      });
      won(await kernel.apply(keyOf(record.toolCallId), APPROVALS, put, record));
    },
    async claim(toolCallId, decisionId) {
      const decide: KernelStep<ApprovalRecord, string, boolean> = (current, id, now) =>
        current === undefined || current.decisionId !== undefined
          ? { value: current, effects: [false] }
          : { value: { ...current, decisionId: id }, effects: [true], deadlineAt: now + ttlMs };
      return won(await kernel.apply(keyOf(toolCallId), APPROVALS, decide, decisionId));
    },
    async findUnclaimed(match) {
      const wanted = canonicalJson(match.args);
      const listed = await kernel.list(`${prefix}approval:`, APPROVALS); // KernelError store_failed
      let found: ApprovalRecord | undefined; // records the codec refuses are in listed.refused: never matched
      for (const { value: record } of listed.records) {
        if (record.decisionId !== undefined) continue;
        if (record.sessionKey !== match.sessionKey || record.tool !== match.tool) continue;
        if (canonicalJson(record.args) !== wanted) continue;
        if (found === undefined || record.createdAt < found.createdAt) found = record;
      }
      return found;
    },
  };
}
