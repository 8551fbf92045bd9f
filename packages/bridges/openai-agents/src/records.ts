import {
  CLAIM_RECORDS,
  type ClaimRecord,
  type ClaimResult,
  type Committed,
  type HeldClaim,
  canonicalJson,
  type Clock,
  createKernel,
  createOwnerId,
  isParleyError,
  type JsonValue,
  type Kernel,
  type KernelRefusal,
  type KernelStep,
  type RecordCodec,
  type Store,
} from '@parley/core';
import { AgentsBridgeError } from './errors.js';

/** @internal A run waiting for answers: its serialized `RunState` and where its questions were asked. */
export interface RunRecord {
  readonly runId: string;
  /** `RunState.toString()` at the interruption. */
  readonly state: string;
  /** `waiting` for answers, `resuming` once one process took it (compare-and-set), `done`. */
  readonly status: 'waiting' | 'resuming' | 'done';
  readonly sessionKey: string;
  readonly requester: string;
  /** The call ids of the interruptions asked about. */
  readonly callIds: readonly string[];
}

/** @internal One interruption asked about, and the decision that answered it (set once). */
export interface ApprovalRecord {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly args: JsonValue;
  readonly sessionKey: string;
  readonly createdAt: number;
  readonly decisionId?: string;
}

/** @internal */
export interface Records {
  /** @throws AgentsBridgeError `corrupt_record`, `record_version`, `store_failed`. */
  readRun(runId: string): Promise<{ record: RunRecord; version: number } | undefined>;
  /** Writes the run when its revision is still `version` (null: absent); false when another wrote first. */
  writeRun(record: RunRecord, version: number | null): Promise<boolean>;
  readApproval(runId: string, callId: string): Promise<{ record: ApprovalRecord } | undefined>;
  writeApproval(record: ApprovalRecord): Promise<void>;
  /** Writes the decision id once; true for the caller that wrote it. */
  claim(runId: string, callId: string, decisionId: string): Promise<boolean>;
  /**
   * Claims the resumption of a run at revision `rev` (kernel claim, lease `leaseMs`) before its
   * RunState is run again; `unknown` when a process claimed it and its lease ended without a result.
   */
  claimResume(runId: string, rev: number, leaseMs: number): Promise<Exclude<ClaimResult, KernelRefusal>>;
  /** The claim of the resumption of a run at revision `rev`, as stored (not taken). */
  readResume(runId: string, rev: number): Promise<Committed<ClaimRecord> | undefined>;
  /** Settles a resumption that ran (`true`) or gives back one that did not (`false`); best effort, never throws. */
  endResume(claim: HeldClaim, ran: boolean): Promise<void>;
  /** The oldest unanswered approval of this session, tool and canonical arguments. */
  findUnclaimed(match: {
    sessionKey: string;
    tool: string;
    args: JsonValue;
  }): Promise<ApprovalRecord | undefined>;
}

/** A run as stored: the record and its revision, which every write of it checks and bumps. */
type StoredRun = RunRecord & { readonly rev: number };

const RUNS: RecordCodec<StoredRun> = {
  kind: 'parley.openai-agents.run',
  version: 1,
  decode: (data) =>
    hasShape(data, {
      ...{ runId: isString, state: isString, sessionKey: isString, requester: isString },
      status: (status) => status === 'waiting' || status === 'resuming' || status === 'done',
      callIds: (ids) => Array.isArray(ids) && ids.every(isString),
      rev: Number.isSafeInteger,
    })
      ? (data as unknown as StoredRun) // every field checked
      : undefined,
  encode: (value) => ({ ...value }),
};

const APPROVALS: RecordCodec<ApprovalRecord> = {
  kind: 'parley.openai-agents.approval',
  version: 1,
  decode: (data) =>
    hasShape(data, {
      ...{ runId: isString, callId: isString, tool: isString, sessionKey: isString },
      args: (args) => args !== undefined,
      createdAt: Number.isFinite,
      decisionId: (id) => id === undefined || isString(id),
    })
      ? (data as unknown as ApprovalRecord) // every field checked
      : undefined,
  encode: (value) => ({ ...value }) as unknown as JsonValue, // plain JSON: strings, numbers and args
};

/**
 * @internal The bridge's records in the store, kept through the durable kernel: every record is
 * checked by its codec when read (a corrupt or other-version record is refused with a typed error,
 * never used), and every write is one compare-and-set of a step run on the fresh record.
 */
export function createRecords(store: Store, prefix: string, ttlMs: number, clock: Clock): Records {
  const kernel = createKernel({ store, clock, owner: createOwnerId('agents') });
  const runKey = (runId: string) => `${prefix}run:${runId}`;
  const approvalKey = (runId: string, callId: string) => `${prefix}approval:${runId}:${callId}`;
  const resumeKey = (runId: string, rev: number) => `${prefix}resume:${runId}:${rev}`;
  const records: Records = {
    async readRun(runId) {
      const found = await read(kernel, runKey(runId), RUNS);
      if (found === undefined) return undefined;
      const { rev, ...record } = found;
      return { record, version: rev };
    },
    async writeRun(record, version) {
      const write: KernelStep<StoredRun, RunRecord, boolean> = (current, next, now) =>
        (current?.rev ?? null) === version
          ? { value: { ...next, rev: (version ?? 0) + 1 }, effects: [true], deadlineAt: now + ttlMs }
          : { value: current, effects: [false] };
      return won(await kernel.apply(runKey(record.runId), RUNS, write, record));
    },
    async readApproval(runId, callId) {
      const record = await read(kernel, approvalKey(runId, callId), APPROVALS);
      return record === undefined ? undefined : { record };
    },
    async writeApproval(record) {
      const write: KernelStep<ApprovalRecord, ApprovalRecord, boolean> = (_, next, now) => ({
        value: next,
        effects: [true],
        deadlineAt: now + ttlMs,
      });
      await won(await kernel.apply(approvalKey(record.runId, record.callId), APPROVALS, write, record));
    },
    async claim(runId, callId, decisionId) {
      const decide: KernelStep<ApprovalRecord, string, boolean> = (current, id) =>
        current === undefined || current.decisionId !== undefined
          ? { value: current, effects: [false] }
          : { value: { ...current, decisionId: id }, effects: [true] };
      return won(await kernel.apply(approvalKey(runId, callId), APPROVALS, decide, decisionId));
    },
    async claimResume(runId, rev, leaseMs) {
      const key = resumeKey(runId, rev);
      const found = await kernel.claim(key, {
        id: `${runId}:${rev}`,
        digest: `rev:${rev}`,
        leaseMs,
        retainMs: ttlMs,
      });
      if ('ok' in found) throw bridgeError(found.code, found.message, key, undefined);
      return found;
    },
    readResume: (runId, rev) => committed(kernel, resumeKey(runId, rev), CLAIM_RECORDS),
    async endResume(claim, ran) {
      // best effort: a claim not ended stays without a result, which is reported as an unknown outcome
      await (ran ? kernel.settle(claim, { ran: true }) : kernel.abandon(claim));
    },
    async findUnclaimed(match) {
      const wanted = canonicalJson(match.args);
      const listed = await kernel.list(`${prefix}approval:`, APPROVALS); // KernelError store_failed
      const open = listed.records // records the codec refuses are in listed.refused: never matched
        .map(({ value }) => value)
        .filter(
          (record) =>
            record.decisionId === undefined &&
            record.sessionKey === match.sessionKey &&
            record.tool === match.tool &&
            canonicalJson(record.args) === wanted,
        );
      return open.sort((a, b) => a.createdAt - b.createdAt)[0]; // the oldest
    },
  };
  return records;
}

/** The value at `key`; a record the codec refuses is thrown as an {@link AgentsBridgeError}. */
async function read<T>(kernel: Kernel, key: string, codec: RecordCodec<T>): Promise<T | undefined> {
  return (await committed(kernel, key, codec))?.value;
}

/** The committed record at `key`; a record the codec refuses is thrown as an {@link AgentsBridgeError}. */
async function committed<T>(
  kernel: Kernel,
  key: string,
  codec: RecordCodec<T>,
): Promise<Committed<T> | undefined> {
  try {
    return await kernel.read(key, codec);
  } catch (error) {
    const code = isParleyError(error) ? String(error.code) : 'store_failed';
    throw bridgeError(code, error instanceof Error ? error.message : String(error), key, error);
  }
}

/** Whether a step's write won; a refusal other than a lost race is thrown as an {@link AgentsBridgeError}. */
function won(result: { readonly ok: true; readonly effects: readonly boolean[] } | KernelRefusal): boolean {
  if (result.ok) return result.effects[0] === true;
  if (result.code === 'write_conflict') return false;
  throw bridgeError(result.code, result.message, result.key, undefined);
}

/** The bridge's error for a kernel's refusal or error `code`: a record refused keeps its code. */
function bridgeError(code: string, message: string, key: string, cause: unknown): AgentsBridgeError {
  const kept = code === 'corrupt_record' || code === 'record_version' ? code : 'store_failed';
  return new AgentsBridgeError(kept, message, { cause, details: { key, code } });
}

type Check = (value: unknown) => boolean;
const isString: Check = (value) => typeof value === 'string';

/** Whether `data` is an object whose every field passes its check. */
function hasShape(data: unknown, checks: Readonly<Record<string, Check>>): boolean {
  const object = typeof data === 'object' && data !== null && !Array.isArray(data);
  return object && Object.entries(checks).every(([field, check]) => check(Reflect.get(data, field)));
}
