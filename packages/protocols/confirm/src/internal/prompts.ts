import type { OutboundCard, OutboundInput, SessionAddress } from '@parley/bus';
import type { Draft } from './draft.js';
import type { ConfirmMessages } from '../events.js';
import type { ConfirmOutcome } from '../outcomes.js';
import { fail, type GateContext } from './context.js';
import { DEFAULT_MESSAGES, type ConfirmationRecord } from './records.js';
import { renderSummary } from './render.js';
import type { CardChoice } from './token.js';

// The texts a confirmation sends — prompt, re-prompt, step, notices, card, summary pages — with
// the host's templates contained: one that throws is reported and never escapes.

/** The prompt text, or `undefined` (reported) when a host template throws or returns no text. */
export function promptText(
  ctx: GateContext,
  record: ConfirmationRecord,
  kind: 'first' | 'step' | 'reprompt',
): string | undefined {
  if (record.steps !== null) return (record.steps[record.step] as { prompt: string }).prompt;
  const summary = renderSummary(record.action, record.summary, ctx.rules.paging);
  return contained(ctx, record.id, () =>
    kind === 'reprompt'
      ? ctx.texts.reprompt(summary, ctx.rules.maxReprompts - record.reprompts)
      : ctx.texts.prompt(summary, ctx.rules.standingMs !== undefined),
  );
}

/** Runs a host template; a throw or a non-text result is reported and reads as `undefined`. */
function contained(ctx: GateContext, id: string, template: () => unknown): string | undefined {
  try {
    const text = template();
    if (typeof text === 'string' && text !== '') return text;
    fail(ctx, new TypeError(`A confirm message template returned ${typeof text}, not text`), id);
  } catch (error) {
    fail(ctx, error, id);
  }
  return undefined;
}

/** A notice text: the host's template, or the default one when the host's throws. */
export function noticeText(
  ctx: GateContext,
  shown: Shown,
  name: keyof Pick<ConfirmMessages, 'timedOut' | 'expired' | 'tooEarly'>,
): string {
  const summary = renderSummary(shown.action, shown.summary, false);
  return contained(ctx, shown.id, () => ctx.texts[name](summary)) ?? DEFAULT_MESSAGES[name](summary);
}

/** The reply to an answer absorbed after the decision: "already confirmed", "already cancelled", "expired". */
export function lateText(ctx: GateContext, shown: Shown, outcome: ConfirmOutcome): string {
  const summary = renderSummary(shown.action, shown.summary, false);
  return (
    contained(ctx, shown.id, () => ctx.texts.late(summary, outcome)) ??
    DEFAULT_MESSAGES.late(summary, outcome)
  );
}

/** The card of a prompt: its buttons carry the confirmation's signed token. */
export function buildCard(ctx: GateContext, record: ConfirmationRecord): OutboundCard {
  const choices: [CardChoice, string, 'danger' | 'default' | 'primary'][] = [
    ['confirm', '确认 Confirm', 'danger'],
    ['cancel', '取消 Cancel', 'default'],
  ];
  if (ctx.rules.standingMs !== undefined) choices.push(['always', '总是允许 Always allow', 'primary']);
  const buttons = choices.map(([choice, label, style]) => ({
    label,
    style,
    value: { confirmation: ctx.tokens.sign(record.id, choice) },
  }));
  const body = renderSummary(record.action, record.summary, ctx.rules.paging);
  return { title: '需要确认 Confirmation required', body, buttons };
}

/** Sends a plain notice to a confirmation's session; a failed send (also one that throws or rejects) is reported. */
export function notify(ctx: GateContext, address: SessionAddress, id: string, text: string): void {
  try {
    void ctx.bus.publishOutbound(outboundTo(address, text)).then(
      (result) => {
        if (result.status === 'rejected') fail(ctx, result.error ?? result.code, id);
      },
      (error: unknown) => fail(ctx, error, id),
    );
  } catch (error) {
    fail(ctx, error, id); // a bus that throws at once: reported, and whatever sent the notice goes on
  }
}

/** What a notice shows of a confirmation. */
type Shown = Pick<ConfirmationRecord, 'id' | 'action' | 'summary'>;

/**
 * A message to `address`, built field by field: a literal that spreads the address and then adds
 * the text gets a new hidden class almost every time on Node 20's V8, which made every reader of
 * outbound messages (the bus, the adapter) megamorphic.
 */
export function outboundTo(address: SessionAddress, text: string): Draft<OutboundInput> {
  const outbound: Draft<OutboundInput> = { channel: address.channel, chatId: address.chatId, text };
  if (address.threadId !== undefined) outbound.threadId = address.threadId;
  return outbound;
}
