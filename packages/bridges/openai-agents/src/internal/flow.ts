// What the bridge's run steps share: its agent, runner, records and confirm gate, and their shapes.
import type { Agent, Runner } from '@openai/agents';
import type { ConfirmGate } from '@parley/confirm';
import type { Clock, ConsentLedger } from '@parley/core';
import type { Records, RunRecord } from '../records.js';
import type { AgentsRunOutcome } from '../types.js';

/** @internal The parts of one bridge its run steps work with. */
export interface Flow<TContext> {
  readonly agent: Agent<TContext>;
  readonly runner: Runner;
  readonly records: Records;
  readonly confirmGate: ConfirmGate;
  readonly clock: Clock;
  readonly ledger: ConsentLedger | undefined;
  readonly resumeLeaseMs: number;
}

/** @internal A completed run's result. */
export type Result<TContext> = Extract<AgentsRunOutcome<TContext>, { status: 'completed' }>['result'];

/** @internal Which run a result belongs to, and where its approvals are asked. */
export interface Where {
  readonly runId: string;
  readonly sessionKey: string;
  readonly requester: string;
  readonly timeoutMs?: number | undefined;
  readonly fresh: boolean;
}

/** @internal An unknown outcome: a resumption claimed by a process whose lease ended without a result. */
export type Unknown<TContext> = Extract<AgentsRunOutcome<TContext>, { status: 'unknown_outcome' }>;
/** @internal Another process has the run. */
export type Elsewhere<TContext> = Extract<AgentsRunOutcome<TContext>, { status: 'elsewhere' }>;
/** @internal A run this process took and resumed: the result, and the run's record as it was taken. */
export interface Taken<TContext> {
  readonly status: 'taken';
  readonly result: Result<TContext>;
  readonly run: RunRecord;
}

/** @internal The unknown outcome of a resumption claim (none: a run taken before claims existed). */
export function unknownOutcome<TContext>(
  claim: { owner: string; claimedAt: number } | undefined,
): Unknown<TContext> {
  return { status: 'unknown_outcome', resumedBy: claim?.owner ?? null, resumedAt: claim?.claimedAt ?? null };
}
