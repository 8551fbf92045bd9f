import { canonicalJson, type JsonValue, type Store } from '@parley/core';

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
  readRun(runId: string): Promise<{ record: RunRecord; version: number } | undefined>;
  writeRun(record: RunRecord, version: number | null): Promise<boolean>;
  readApproval(
    runId: string,
    callId: string,
  ): Promise<{ record: ApprovalRecord; version: number } | undefined>;
  writeApproval(record: ApprovalRecord): Promise<void>;
  /** Writes the decision id once; true for the caller that wrote it. */
  claim(runId: string, callId: string, decisionId: string): Promise<boolean>;
  /** The oldest unanswered approval of this session, tool and canonical arguments. */
  findUnclaimed(match: {
    sessionKey: string;
    tool: string;
    args: JsonValue;
  }): Promise<ApprovalRecord | undefined>;
}

/** @internal The bridge's records in the store. */
export function createRecords(store: Store, prefix: string, ttlMs: number): Records {
  const runKey = (runId: string) => `${prefix}run:${runId}`;
  const approvalKey = (runId: string, callId: string) => `${prefix}approval:${runId}:${callId}`;
  const records: Records = {
    async readRun(runId) {
      const entry = await store.getEntry(runKey(runId));
      return entry === undefined
        ? undefined
        : { record: entry.value as unknown as RunRecord, version: entry.version }; // written by writeRun
    },
    async writeRun(record, version) {
      const result = await store.compareAndSet(
        runKey(record.runId),
        version,
        record as unknown as JsonValue,
        { ttlMs },
      );
      return result.ok;
    },
    async readApproval(runId, callId) {
      const entry = await store.getEntry(approvalKey(runId, callId));
      return entry === undefined
        ? undefined
        : { record: entry.value as unknown as ApprovalRecord, version: entry.version }; // written by writeApproval
    },
    async writeApproval(record) {
      await store.set(approvalKey(record.runId, record.callId), record as unknown as JsonValue, { ttlMs });
    },
    async claim(runId, callId, decisionId) {
      const current = await records.readApproval(runId, callId);
      if (current === undefined || current.record.decisionId !== undefined) return false;
      const next = { ...current.record, decisionId } as unknown as JsonValue;
      return (await store.compareAndSet(approvalKey(runId, callId), current.version, next, { ttlMs })).ok;
    },
    async findUnclaimed(match) {
      const wanted = canonicalJson(match.args);
      const open: ApprovalRecord[] = [];
      for await (const entry of store.list(`${prefix}approval:`)) {
        const record = entry.value as unknown as ApprovalRecord; // only writeApproval writes under this prefix
        const same = [
          record.decisionId === undefined,
          record.sessionKey === match.sessionKey,
          record.tool === match.tool,
          canonicalJson(record.args) === wanted,
        ];
        if (same.every(Boolean)) open.push(record);
      }
      return open.sort((a, b) => a.createdAt - b.createdAt)[0]; // the oldest
    },
  };
  return records;
}
