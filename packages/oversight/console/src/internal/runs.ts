// Pipeline runs and their nodes, read through @parley/pipeline's record codecs and drawn with its toMermaid.
import type { StoreEntry } from '@parley/core';
import {
  NODE_RECORD,
  type NodeRecord,
  type PipelineDefinition,
  RUN_RECORD,
  type RunRecord,
  toMermaid,
} from '@parley/pipeline';
import { listPage } from './confirmations.js';
import { hidden, type ListView, maybeText, shown, text, type ViewContext } from './context.js';
import { pageOf, readRecord } from './page.js';

/** A run's header. */
export interface RunView {
  readonly runId: string;
  readonly name: string;
  readonly digest: string;
  readonly status: string;
  readonly createdAt: number;
  readonly endedAt?: number;
  readonly input: string;
}

/** A node of a run, with what the definition says of it when the console knows the definition. */
export interface NodeView {
  readonly id: string;
  readonly kind: string;
  readonly dependsOn: readonly string[];
  readonly status: string;
  readonly attempts: number;
  /** Times a review had this node redo its work. */
  readonly revisions: number;
  /** The round of a review node's stored revise request, and its issues. */
  readonly reviseRound?: number;
  readonly issues?: readonly string[];
  /** An approval's absolute deadline while it waits for a person. */
  readonly waitingUntil?: number;
  readonly owner?: string;
  readonly leaseUntil?: number;
  readonly code?: string;
  readonly reason?: string;
  readonly output: string;
}

/** A run with its nodes, its live Mermaid graph (when its definition was given) and what waits. */
export interface RunDetailView {
  readonly ok: true;
  readonly run: RunView;
  readonly nodes: readonly NodeView[];
  /** Mermaid source of the graph with each node's live state; absent without the definition. */
  readonly mermaid?: string;
  readonly approvalsWaiting: readonly string[];
  readonly refused: readonly { readonly key: string; readonly message: string }[];
}

/** One page of the runs, by run id. */
export async function runPage(ctx: ViewContext, after: string | undefined): Promise<ListView<RunView>> {
  const prefix = `${ctx.pipelinePrefix}run:`;
  return listPage(ctx, prefix, after, (entry) => {
    const read = readRecord(entry, RUN_RECORD);
    if (!read.ok || read.value === undefined) return read.ok ? undefined : read.message;
    return runView(ctx, entry.key.slice(prefix.length), read.value);
  });
}

/** A run with its nodes, or `undefined` when no such run is stored (or its header cannot be read). */
export async function runDetail(
  ctx: ViewContext,
  runId: string,
): Promise<RunDetailView | { readonly ok: false; readonly message: string } | undefined> {
  const entry = await ctx.store.getEntry(`${ctx.pipelinePrefix}run:${runId}`);
  if (entry === undefined) return undefined;
  const read = readRecord(entry, RUN_RECORD);
  if (!read.ok) return { ok: false, message: text(ctx, read.message) };
  if (read.value === undefined) return undefined;
  const header = read.value;
  const definition = ctx.pipelines.find((p) => p.name === header.name && p.digest === header.digest);
  const prefix = `${ctx.pipelinePrefix}node:${runId}:`;
  const listed = await pageOf(ctx.store, prefix, undefined, MAX_NODES);
  const records: Record<string, NodeRecord> = {};
  const refused: { key: string; message: string }[] = [];
  for (const item of listed.entries) {
    const node = readNode(item);
    if (typeof node === 'string') refused.push({ key: text(ctx, item.key), message: text(ctx, node) });
    else if (node !== undefined) records[item.key.slice(prefix.length)] = node;
  }
  const ids = definition?.nodes.map((n) => n.id) ?? Object.keys(records);
  const nodes = ids.map((id) => nodeView(ctx, id, records[id], definition));
  return {
    ok: true,
    run: runView(ctx, runId, header),
    nodes,
    mermaid: definition === undefined ? undefined : toMermaid(definition, records),
    approvalsWaiting: nodes.filter((n) => n.kind === 'approval' && n.status === 'waiting').map((n) => n.id),
    refused,
  };
}

/** Nodes a run holds at most (`MAX_PIPELINE_NODES` of @parley/pipeline is lower). */
const MAX_NODES = 1_000;

function readNode(entry: StoreEntry): NodeRecord | string | undefined {
  const read = readRecord(entry, NODE_RECORD);
  if (!read.ok) return read.message;
  const lease = read.record.lease;
  if (read.value === undefined) return undefined;
  return lease === null ? read.value : { ...read.value, owner: lease.owner, leaseUntil: lease.expiresAt };
}

function runView(ctx: ViewContext, runId: string, run: RunRecord): RunView {
  return {
    runId: text(ctx, runId),
    name: text(ctx, run.name),
    digest: text(ctx, run.digest),
    status: run.status,
    createdAt: run.createdAt,
    endedAt: run.endedAt,
    input: ctx.reveal.outputs ? shown(ctx, run.input) : hidden('the run’s input', run.input),
  };
}

function nodeView(
  ctx: ViewContext,
  id: string,
  record: NodeRecord | undefined,
  definition: PipelineDefinition | undefined,
): NodeView {
  const node = definition?.nodes.find((n) => n.id === id);
  const status = record?.status ?? 'pending';
  const revise = record?.revise;
  return {
    id: text(ctx, id),
    kind: node?.kind ?? 'unknown',
    dependsOn: (node?.dependsOn ?? []).map((dep) => text(ctx, dep)),
    status,
    attempts: record?.attempts ?? 0,
    revisions: record?.revision ?? 0,
    ...(revise === undefined
      ? {}
      : { reviseRound: revise.round, issues: revise.issues.map((i) => text(ctx, i.description)) }),
    waitingUntil: status === 'waiting' ? record?.deadlineAt : undefined,
    owner: maybeText(ctx, record?.owner),
    leaseUntil: record?.leaseUntil,
    code: maybeText(ctx, record?.code),
    reason: maybeText(ctx, record?.reason),
    output: ctx.reveal.outputs ? shown(ctx, record?.output) : hidden('the node’s output', record?.output),
  };
}
