// Pending and settled confirmations, read through @parley/confirm's record codecs.
import { CONFIRMATION_RECORD, DECISION_RECORD } from '@parley/confirm';
import type { StoreEntry } from '@parley/core';
import { hidden, type ListView, maybeText, shown, text, type ViewContext } from './context.js';
import { pageOf, readRecord } from './page.js';

/** A confirmation waiting for a person. */
export interface PendingView {
  readonly id: string;
  readonly sessionKey: string;
  readonly requester: string;
  readonly approvers: string;
  readonly actionName: string;
  readonly actionDigest: string;
  readonly args: string;
  readonly summary: string;
  /** The step's own prompt (exact multi-step confirmations), as delivered. */
  readonly stepPrompt?: string;
  readonly step: string;
  readonly promptedAt: number;
  readonly deliveredAt?: number;
  readonly expiresAt: number;
  readonly timeLeftMs: number;
}

/** A settled confirmation. */
export interface DecisionView {
  readonly id: string;
  readonly sessionKey: string;
  readonly requester: string;
  readonly actionName: string;
  readonly actionDigest: string;
  readonly args: string;
  readonly summary: string;
  readonly outcome: string;
  readonly reason: string;
  readonly decidedBy?: string;
  readonly reply?: string;
  readonly requestedAt: number;
  readonly decidedAt: number;
  readonly used: boolean;
}

/** One page of the pending confirmations, by key. */
export async function pendingPage(
  ctx: ViewContext,
  after: string | undefined,
): Promise<ListView<PendingView>> {
  const prefix = `${ctx.confirmPrefix}pending:`;
  const now = ctx.clock.now();
  return listPage(ctx, prefix, after, (entry) => {
    const read = readRecord(entry, CONFIRMATION_RECORD);
    if (!read.ok || read.value === undefined) return read.ok ? undefined : read.message;
    const r = read.value;
    const step = r.steps?.[r.step];
    return {
      id: text(ctx, r.id),
      sessionKey: text(ctx, r.sessionKey),
      requester: text(ctx, r.requester),
      approvers: text(ctx, typeof r.approvers === 'string' ? r.approvers : r.approvers.join(', ')),
      actionName: text(ctx, r.action.name),
      actionDigest: r.action.digest,
      args: ctx.reveal.args ? shown(ctx, r.action.args) : hidden('the action’s arguments', r.action.args),
      summary: text(ctx, r.summary),
      stepPrompt: step === undefined ? undefined : text(ctx, step.prompt),
      step: `${r.step + 1} of ${r.steps?.length ?? 1}`,
      promptedAt: r.promptedAt,
      deliveredAt: r.deliveredAt,
      expiresAt: r.expiresAt,
      timeLeftMs: Math.max(0, r.expiresAt - now),
    };
  });
}

/** One page of the settled confirmations (decisions), by key. */
export async function decisionPage(
  ctx: ViewContext,
  after: string | undefined,
): Promise<ListView<DecisionView>> {
  return listPage(ctx, `${ctx.confirmPrefix}decision:`, after, (entry) => {
    const read = readRecord(entry, DECISION_RECORD);
    if (!read.ok || read.value === undefined) return read.ok ? undefined : read.message;
    const d = read.value;
    return {
      id: text(ctx, d.id),
      sessionKey: text(ctx, d.sessionKey),
      requester: text(ctx, d.requester),
      actionName: text(ctx, d.action.name),
      actionDigest: d.action.digest,
      args: ctx.reveal.args ? shown(ctx, d.action.args) : hidden('the action’s arguments', d.action.args),
      summary: text(ctx, d.summary),
      outcome: d.outcome,
      reason: d.reason,
      decidedBy: maybeText(ctx, d.decidedBy),
      reply: maybeText(ctx, d.reply),
      requestedAt: d.requestedAt,
      decidedAt: d.decidedAt,
      used: d.usedAt !== undefined,
    };
  });
}

/**
 * A page of the records under `prefix`, each turned into a view by `view`: a view, `undefined`
 * (nothing to show, such as a lease-only record) or why it cannot be read (listed as refused).
 */
export async function listPage<T>(
  ctx: ViewContext,
  prefix: string,
  after: string | undefined,
  view: (entry: StoreEntry) => T | string | undefined,
  accept?: (entry: StoreEntry) => boolean,
): Promise<ListView<T>> {
  const page = await pageOf(ctx.store, prefix, after, ctx.pageSize, accept);
  const items: T[] = [];
  const refused: { key: string; message: string }[] = [];
  for (const entry of page.entries) {
    const item = view(entry);
    if (typeof item === 'string') refused.push({ key: text(ctx, entry.key), message: text(ctx, item) });
    else if (item !== undefined) items.push(item);
  }
  return { ok: true, items, refused, next: page.next };
}
