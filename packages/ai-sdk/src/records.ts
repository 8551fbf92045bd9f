import { canonicalJson, type JsonValue, type Store } from '@parley/core';

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
  /** Set once, by compare-and-set, by whoever takes the decision: the waiting `approve` or a resume. */
  readonly decisionId?: string;
}

/** @internal The store keys of the bridge. */
export function approvalKey(prefix: string, toolCallId: string): string {
  return `${prefix}approval:${toolCallId}`;
}

/** @internal Reads an approval record, or undefined when absent or not one. */
export async function readApproval(
  store: Store,
  prefix: string,
  toolCallId: string,
): Promise<{ record: ApprovalRecord; version: number } | undefined> {
  const entry = await store.getEntry(approvalKey(prefix, toolCallId));
  if (entry === undefined || !isApprovalRecord(entry.value)) return undefined;
  return { record: entry.value, version: entry.version };
}

/**
 * Claims a record for a decision: writes its decision id only when none is written yet. True when
 * this caller won (it is the one that continues the conversation).
 *
 * @internal
 */
export async function claimApproval(
  store: Store,
  prefix: string,
  toolCallId: string,
  decisionId: string,
  ttlMs: number,
): Promise<boolean> {
  const current = await readApproval(store, prefix, toolCallId);
  if (current === undefined || current.record.decisionId !== undefined) return false;
  const next = { ...current.record, decisionId } as unknown as JsonValue; // a record is plain JSON
  const result = await store.compareAndSet(approvalKey(prefix, toolCallId), current.version, next, { ttlMs });
  return result.ok;
}

/**
 * Finds the oldest unclaimed record a decision answers: same session, tool and canonical arguments.
 *
 * @internal
 */
export async function findUnclaimed(
  store: Store,
  prefix: string,
  match: { readonly sessionKey: string; readonly tool: string; readonly args: JsonValue },
): Promise<ApprovalRecord | undefined> {
  const wanted = canonicalJson(match.args);
  let found: ApprovalRecord | undefined;
  for await (const entry of store.list(`${prefix}approval:`)) {
    const record = entry.value;
    if (!isApprovalRecord(record) || record.decisionId !== undefined) continue;
    if (record.sessionKey !== match.sessionKey || record.tool !== match.tool) continue;
    if (canonicalJson(record.args) !== wanted) continue;
    if (found === undefined || record.createdAt < found.createdAt) found = record;
  }
  return found;
}

function isApprovalRecord(value: unknown): value is ApprovalRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['approvalId'] === 'string' &&
    typeof record['toolCallId'] === 'string' &&
    typeof record['tool'] === 'string' &&
    typeof record['sessionKey'] === 'string' &&
    typeof record['requester'] === 'string' &&
    typeof record['createdAt'] === 'number' &&
    Array.isArray(record['messages']) &&
    (record['decisionId'] === undefined || typeof record['decisionId'] === 'string')
  );
}
