import { type InboundMessage, type OutboundCard, parseSessionKey } from '@parley/bus';
import {
  assertTimeoutMs,
  createDeadlineQueue,
  createEmitter,
  createMemoryStore,
  generateId,
  type JsonValue,
  type StoreChange,
  systemClock,
} from '@parley/core';
import { canonicalJson, digestAction } from './digest.js';
import { ConfirmError } from './errors.js';
import {
  DEFAULT_MESSAGES,
  type Entry,
  MAX_SUMMARY_LENGTH,
  readDecisionRecord,
  readPendingRecord,
  toDecision,
  toPendingRecord,
} from './internal/records.js';
import { type CardChoice, createTokenCodec } from './internal/token.js';
import {
  type ApproverPolicy,
  type ConfirmDecision,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  type ConfirmOutcome,
  type ConfirmRequest,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  type DecisionReason,
} from './types.js';
import {
  DEFAULT_VOCABULARY,
  MAX_REPLY_LENGTH,
  normalizeExact,
  normalizeReply,
  parseReply,
} from './vocabulary.js';

type Extra = Pick<ConfirmDecision, 'decidedBy' | 'reply' | 'failedStep' | 'allowUntil'>;

interface SettleOptions {
  /** Who and what decided. */
  readonly extra?: Extra;
  /** `false`: resolve the local waiter only, record nothing (close). */
  readonly record?: boolean;
  /** A decision another gate recorded: taken as is, nothing written. */
  readonly adopt?: ConfirmDecision;
  /** Sent to the session when this gate's decision is the one recorded. */
  readonly notice?: string;
}

const DAY_MS = 86_400_000;

/**
 * Creates a {@link ConfirmGate} on a bus and installs its interceptor: a pending confirmation of a
 * session takes the next reply of an allowed user of that session; the reply is consumed and never
 * reaches the agent.
 *
 * Use one gate per bot. Destructive tools call `request(...)`, then `authorize(decision, action)`
 * right before running; only a recorded `confirmed` decision for exactly that action passes, once.
 * Pending confirmations are written to the store, so a new gate on the same store (after a
 * restart) still intercepts their replies and either resumes them through `resume` handlers or
 * tells the user plainly that the action expired.
 *
 * @throws CoreError `invalid_timeout` for a bad `timeoutMs`, `standingAllowanceMs` or `auditTtlMs`;
 * ConfirmError `invalid_argument` for a bad approver list, policy or limit.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import { createManualClock } from '@parley/core';
 *
 * const clock = createManualClock({ now: 1_000 });
 * const bus = createMessageBus({ clock });
 * const gate = createConfirmGate({ bus, clock });
 * const action = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } };
 * const pending = gate.request({ sessionKey: 'feishu:oc_1', action, summary: action.args.sql, requester: 'ou_alice' });
 * await gate.ready;
 * console.log((await bus.receiveOutbound()).text.startsWith('以下操作需要确认')); // true
 * await bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_alice', text: '确认' });
 * const decision = await pending;
 * console.log(decision.outcome, decision.decidedBy); // confirmed ou_alice
 * console.log((await gate.authorize(decision, action)).ok); // true
 * console.log(bus.size.inbound); // 0
 * ```
 */
export function createConfirmGate(options: ConfirmGateOptions): ConfirmGate {
  const { bus } = options;
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const nextId = options.generateId ?? (() => generateId('cfm_'));
  const defaultTimeoutMs = assertTimeoutMs(options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS);
  const approvers = checkApprovers(options.approvers ?? 'requester');
  const whenPending = checkChoice(
    options.whenPending ?? 'queue',
    ['queue', 'reject', 'supersede'],
    'whenPending',
  );
  const unrecognised = checkChoice(options.unrecognised ?? 'cancel', ['cancel', 'reprompt'], 'unrecognised');
  const maxQueued = checkCount(options.maxQueuedPerSession ?? 8, 'maxQueuedPerSession');
  const maxReprompts = checkCount(options.maxReprompts ?? 2, 'maxReprompts');
  const standingMs =
    options.standingAllowanceMs === undefined
      ? undefined
      : assertTimeoutMs(options.standingAllowanceMs, 'standingAllowanceMs');
  const auditTtlMs = assertTimeoutMs(options.auditTtlMs ?? 7 * DAY_MS, 'auditTtlMs');
  const vocabulary = options.vocabulary ?? DEFAULT_VOCABULARY;
  const cards = options.cards ?? true;
  const texts = { ...DEFAULT_MESSAGES, ...options.messages };
  const resume = options.resume ?? {};
  const prefix = options.keyPrefix ?? 'confirm:';
  const tokens = createTokenCodec(options.secret);
  const events = createEmitter<ConfirmEvents>(
    options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
  );
  const deadlines = createDeadlineQueue({ clock });
  const active = new Map<string, Entry>();
  const queued = new Map<string, Entry[]>();
  const byId = new Map<string, Entry>();
  /** Confirmations pending on other gates of the same store, by id and by session. */
  const mirrors = new Map<string, Entry>();
  const mirrorOf = new Map<string, Entry>();
  const recentlySettled = new Set<string>();
  let closed = false;
  let loading = true;

  const pendingPrefix = `${prefix}pending:`;
  const decisionPrefix = `${prefix}decision:`;
  const pendingKey = (id: string): string => `${pendingPrefix}${id}`;
  const decisionKey = (id: string): string => `${decisionPrefix}${id}`;
  const allowKey = (entry: Entry): string =>
    `${prefix}allow:${entry.sessionKey}\u0000${entry.action.name}\u0000${entry.approvers === 'requester' ? entry.requester : '*'}`;

  function fail(error: unknown, id?: string): void {
    events.emit('error', id === undefined ? { error } : { error, id });
  }

  function mayDecide(entry: Entry, userId: string): boolean {
    const policy = entry.approvers;
    if (policy === 'requester') return userId === entry.requester;
    return policy === 'any' || policy.includes(userId);
  }

  function persist(entry: Entry): void {
    const record = toPendingRecord(entry);
    const ttlMs = Math.max(1, record.expiresAt - clock.now()) + DAY_MS;
    entry.io = entry.io
      .then(() => store.set(pendingKey(entry.id), asJson(record), { ttlMs }))
      .then((version) => {
        entry.version = version;
      })
      .catch((error) => fail(error, entry.id));
  }

  function notify(entry: Entry, text: string): void {
    void bus.publishOutbound({ ...entry.address, text }).then((result) => {
      if (result.status === 'rejected') fail(result.error ?? result.code, entry.id);
    });
  }

  async function sendPrompt(entry: Entry, kind: 'first' | 'step' | 'reprompt'): Promise<void> {
    let text: string;
    let card: OutboundCard | undefined;
    if (entry.steps !== undefined) {
      text = (entry.steps[entry.step] as { prompt: string }).prompt; // step < steps.length while pending
    } else {
      text =
        kind === 'reprompt'
          ? texts.reprompt(entry.summary, maxReprompts - entry.reprompts)
          : texts.prompt(entry.summary, standingMs !== undefined);
      if (cards) card = await buildCard(entry);
    }
    const result = await bus.publishOutbound({
      ...entry.address,
      text,
      ...(card === undefined ? {} : { card }),
    });
    if (result.status === 'rejected') {
      fail(result.error ?? result.code, entry.id);
      settle(entry, 'aborted', 'prompt_failed');
      return;
    }
    if (!entry.done)
      events.emit('prompted', {
        id: entry.id,
        sessionKey: entry.sessionKey,
        step: entry.step,
        reprompt: kind === 'reprompt',
      });
  }

  async function buildCard(entry: Entry): Promise<OutboundCard> {
    const choices: [CardChoice, string, 'danger' | 'default' | 'primary'][] = [
      ['confirm', '确认 Confirm', 'danger'],
      ['cancel', '取消 Cancel', 'default'],
    ];
    if (standingMs !== undefined) choices.push(['always', '总是允许 Always allow', 'primary']);
    const buttons = await Promise.all(
      choices.map(async ([choice, label, style]) => ({
        label,
        style,
        value: { confirmation: await tokens.sign(entry.id, choice) },
      })),
    );
    return { title: '需要确认 Confirmation required', body: entry.summary, buttons };
  }

  function activate(entry: Entry): void {
    const now = clock.now();
    entry.state = 'prompted';
    entry.firstPromptedAt = now;
    entry.promptedAt = now;
    entry.expiresAt = now + entry.timeoutMs;
    active.set(entry.sessionKey, entry);
    entry.deadline = deadlines.add(entry.expiresAt, () => expire(entry));
    persist(entry);
    void sendPrompt(entry, 'first');
  }

  function expire(entry: Entry): void {
    entry.deadline = undefined; // it fired; settle removes the deadline of any other outcome
    settle(entry, 'timed_out', 'timeout', { notice: texts.timedOut(entry.summary) });
  }

  function promoteNext(sessionKey: string): void {
    const list = queued.get(sessionKey);
    const next = list?.shift();
    if (list !== undefined && list.length === 0) queued.delete(sessionKey);
    if (next !== undefined) activate(next);
  }

  function settle(
    entry: Entry,
    outcome: ConfirmOutcome,
    reason: DecisionReason,
    how: SettleOptions = {},
  ): void {
    if (entry.done) return;
    entry.done = true;
    if (entry.deadline !== undefined) deadlines.remove(entry.deadline);
    if (entry.onAbort !== undefined) entry.signal?.removeEventListener('abort', entry.onAbort);
    byId.delete(entry.id);
    forgetMirror(entry);
    recentlySettled.add(entry.id);
    if (recentlySettled.size > 10_000)
      recentlySettled.delete(recentlySettled.values().next().value as string);
    const wasActive = active.get(entry.sessionKey) === entry;
    if (wasActive) active.delete(entry.sessionKey);
    const list = queued.get(entry.sessionKey);
    if (list?.includes(entry)) list.splice(list.indexOf(entry), 1);
    const decision: ConfirmDecision = how.adopt ?? {
      id: entry.id,
      sessionKey: entry.sessionKey,
      action: entry.action,
      summary: entry.summary,
      requester: entry.requester,
      outcome,
      reason,
      ...how.extra,
      requestedAt: entry.requestedAt,
      ...(entry.state === 'prompted' ? { promptedAt: entry.firstPromptedAt } : {}),
      decidedAt: clock.now(),
    };
    const wasPersisted = entry.state === 'prompted';
    const record = how.record !== false && how.adopt === undefined;
    entry.io = entry.io
      .then(() => (record ? write(entry, decision, wasPersisted) : decision))
      .then((final) => {
        // Only the gate whose decision was recorded tells the session (not one that lost the race).
        if (how.notice !== undefined && final === decision && how.adopt === undefined)
          notify(entry, how.notice);
        return finish(entry, final);
      });
    if (wasActive && !closed) promoteNext(entry.sessionKey);
  }

  async function write(
    entry: Entry,
    decision: ConfirmDecision,
    wasPersisted: boolean,
  ): Promise<ConfirmDecision> {
    try {
      const written = await store.compareAndSet(decisionKey(entry.id), null, asJson(decision), {
        ttlMs: auditTtlMs,
      });
      if (!written.ok) {
        const existing = readDecisionRecord(await store.get(decisionKey(entry.id)));
        if (existing !== undefined) return toDecision(existing); // another replica decided first
      }
      if (decision.allowUntil !== undefined && standingMs !== undefined) {
        const grant = {
          grantedBy: decision.decidedBy as string, // `always` comes only from a reply or click, which name the user
          grantedAt: decision.decidedAt,
          decisionId: entry.id,
        };
        await store.set(allowKey(entry), grant, { ttlMs: standingMs });
      }
      if (wasPersisted) await store.delete(pendingKey(entry.id));
    } catch (error) {
      fail(error, entry.id);
    }
    return decision;
  }

  async function finish(entry: Entry, decision: ConfirmDecision): Promise<void> {
    events.emit('decided', { decision });
    entry.resolve?.(decision);
    const handler = resume[entry.action.name];
    if (!entry.restored || entry.remote || handler === undefined || decision.reason === 'closed') return;
    try {
      await handler(decision, gate);
    } catch (error) {
      fail(error, entry.id);
    }
  }

  function answer(entry: Entry, text: string, senderId: string, choice?: CardChoice): void {
    if (entry.restored && !entry.remote && resume[entry.action.name] === undefined) {
      settle(entry, 'aborted', 'expired', {
        extra: { decidedBy: senderId },
        notice: texts.expired(entry.summary),
      });
      return;
    }
    const reason: DecisionReason = choice === undefined ? 'reply' : 'card';
    const by = {
      decidedBy: senderId,
      ...(choice === undefined ? { reply: clip(normalizeReply(text)) } : {}),
    };
    if (entry.steps !== undefined && choice === undefined) {
      const expected = (entry.steps[entry.step] as { expect: string }).expect;
      if (normalizeExact(text) !== normalizeExact(expected)) {
        settle(entry, 'cancelled', 'step_mismatch', {
          extra: { ...by, reply: clip(normalizeExact(text)), failedStep: entry.step + 1 },
        });
        return;
      }
      entry.step++;
      if (entry.step === entry.steps.length) {
        settle(entry, 'confirmed', 'reply', { extra: { ...by, reply: clip(normalizeExact(text)) } });
        return;
      }
      entry.promptedAt = clock.now();
      persist(entry);
      void sendPrompt(entry, 'step');
      return;
    }
    const verdict = choice ?? parseReply(text, vocabulary);
    if (verdict === 'confirm') {
      settle(entry, 'confirmed', reason, { extra: by });
      return;
    }
    if (verdict === 'always') {
      const allowUntil = standingMs === undefined ? undefined : clock.now() + standingMs;
      settle(entry, 'confirmed', reason, { extra: allowUntil === undefined ? by : { ...by, allowUntil } });
      return;
    }
    if (verdict === 'cancel') {
      settle(entry, 'cancelled', reason, { extra: by });
      return;
    }
    if (unrecognised === 'reprompt' && entry.reprompts < maxReprompts) {
      entry.reprompts++;
      entry.promptedAt = clock.now();
      persist(entry);
      void sendPrompt(entry, 'reprompt');
      return;
    }
    settle(entry, 'cancelled', 'unrecognised', { extra: by });
  }

  function onMessage(message: InboundMessage): boolean {
    const entry = active.get(message.sessionKey) ?? mirrorOf.get(message.sessionKey);
    if (entry === undefined || message.kind !== 'message') return false;
    const ignore = (code: ConfirmEvents['ignored']['code'], consumed: boolean): boolean => {
      events.emit('ignored', {
        id: entry.id,
        sessionKey: entry.sessionKey,
        senderId: message.senderId,
        code,
      });
      return consumed;
    };
    if (message.fromSelf === true || message.senderIsBot === true) return ignore('bot', false);
    if (!mayDecide(entry, message.senderId)) return ignore('not_allowed', false);
    const createdAt = message.createdAt ?? message.receivedAt;
    if (createdAt < entry.firstPromptedAt) return ignore('stale_reply', false); // written before the prompt
    if (createdAt < entry.promptedAt) return ignore('stale_reply', true); // an answer to an earlier prompt
    answer(entry, message.text, message.senderId);
    return true;
  }

  async function onCard(message: InboundMessage, token: string): Promise<boolean> {
    if (loading) await ready;
    const refuse = (code: ConfirmEvents['refused']['code'], id?: string): boolean => {
      events.emit(
        'refused',
        id === undefined ? { code, senderId: message.senderId } : { code, senderId: message.senderId, id },
      );
      return true;
    };
    if (message.fromSelf === true || message.senderIsBot === true) return refuse('not_allowed');
    const parsed = await tokens.verify(token);
    if (parsed === undefined) return refuse('forged');
    const { id, choice } = parsed;
    let entry = byId.get(id) ?? mirrors.get(id);
    if (entry === undefined) {
      if (recentlySettled.has(id)) return refuse('settled', id);
      const found = await loadRemote(id);
      if (found === 'settled') return refuse('settled', id);
      entry = byId.get(id) ?? found; // it may have been restored or settled while the store answered
      if (entry === undefined) return refuse('unknown_confirmation', id);
      if (entry.done) return refuse('settled', id);
    }
    if (entry.state !== 'prompted') return refuse('unknown_confirmation', id);
    if (entry.sessionKey !== message.sessionKey) return refuse('session_mismatch', id);
    if (!mayDecide(entry, message.senderId)) return refuse('not_allowed', id);
    if (entry.steps !== undefined) return refuse('steps_required', id);
    answer(entry, '', message.senderId, choice);
    return true;
  }

  /** A confirmation this gate does not hold: settled, unknown, or pending on another replica. */
  async function loadRemote(id: string): Promise<Entry | 'settled' | undefined> {
    try {
      if ((await store.get(decisionKey(id))) !== undefined) return 'settled';
      const record = readPendingRecord(await store.get(pendingKey(id)));
      return record === undefined ? undefined : fromRecord(record, true);
    } catch (error) {
      fail(error, id);
      return undefined;
    }
  }

  function fromRecord(record: NonNullable<ReturnType<typeof readPendingRecord>>, remote: boolean): Entry {
    return {
      id: record.id,
      sessionKey: record.sessionKey,
      address: parseSessionKey(record.sessionKey),
      action: record.action,
      summary: record.summary,
      requester: record.requester,
      approvers: record.approvers,
      steps: record.steps ?? undefined,
      timeoutMs: record.timeoutMs,
      requestedAt: record.requestedAt,
      restored: true,
      remote,
      state: 'prompted',
      step: record.step,
      reprompts: record.reprompts,
      firstPromptedAt: record.firstPromptedAt,
      promptedAt: record.promptedAt,
      expiresAt: record.expiresAt,
      done: false,
      io: Promise.resolve(),
    };
  }

  async function restore(): Promise<void> {
    try {
      for await (const item of store.list(pendingKey(''))) {
        const record = readPendingRecord(item.value);
        if (record === undefined || byId.has(record.id) || active.has(record.sessionKey)) continue;
        const entry = fromRecord(record, false);
        entry.version = item.version;
        byId.set(entry.id, entry);
        active.set(entry.sessionKey, entry);
        entry.deadline = deadlines.add(record.expiresAt, () => expire(entry));
      }
    } catch (error) {
      fail(error);
    }
  }

  function forgetMirror(entry: Entry): void {
    if (mirrors.get(entry.id) !== entry) return;
    mirrors.delete(entry.id);
    if (mirrorOf.get(entry.sessionKey) === entry) mirrorOf.delete(entry.sessionKey);
  }

  /** Stops following another gate's confirmation (settled or expired there); nothing is recorded or sent. */
  function dropMirror(entry: Entry): void {
    if (entry.done) return;
    entry.done = true;
    if (entry.deadline !== undefined) deadlines.remove(entry.deadline);
    forgetMirror(entry);
  }

  function addMirror(entry: Entry): void {
    mirrors.set(entry.id, entry);
    mirrorOf.set(entry.sessionKey, entry);
    // The owner times it out; stop following it then in case the owner is gone.
    entry.deadline = deadlines.add(entry.expiresAt as number, () => dropMirror(entry)); // records have one
  }

  /** A change under the prefix, made by this gate or any other on the same store. */
  function onChange(change: StoreChange): void {
    if (closed) return;
    const { key } = change;
    const isDecision = key.startsWith(decisionPrefix);
    if (!isDecision && !key.startsWith(pendingPrefix)) return;
    const id = key.slice(isDecision ? decisionPrefix.length : pendingPrefix.length);
    const entry = byId.get(id) ?? mirrors.get(id);
    if (isDecision) {
      if (change.kind === 'set' && entry !== undefined && !entry.done) void adoptRecorded(entry);
    } else if (change.kind !== 'set') {
      if (entry?.remote) dropMirror(entry);
    } else if (entry === undefined) {
      if (!loading && !recentlySettled.has(id)) void loadMirror(id);
    } else if (!entry.done) {
      const version = change.version;
      entry.io = entry.io.then(() => refresh(entry, version)); // after this gate's own write of it
    }
  }

  /** Settles an entry with the decision recorded in the store, if there is one. */
  async function adoptRecorded(entry: Entry): Promise<ConfirmDecision | undefined> {
    let record: ReturnType<typeof readDecisionRecord>;
    try {
      record = readDecisionRecord(await store.get(decisionKey(entry.id)));
    } catch (error) {
      fail(error, entry.id);
      return undefined;
    }
    if (record === undefined) return undefined;
    const decision = toDecision(record);
    if (entry.remote) dropMirror(entry);
    else settle(entry, decision.outcome, decision.reason, { adopt: decision });
    return decision;
  }

  /** Takes the step, re-prompt count and prompt time another gate wrote for a confirmation. */
  async function refresh(entry: Entry, version: number | null): Promise<void> {
    if (entry.done || (version !== null && entry.version !== undefined && version <= entry.version)) return;
    try {
      const item = await store.getEntry(pendingKey(entry.id));
      const record = readPendingRecord(item?.value);
      if (item === undefined || record === undefined || entry.done) return;
      entry.version = item.version;
      entry.step = record.step;
      entry.reprompts = record.reprompts;
      entry.promptedAt = record.promptedAt;
    } catch (error) {
      fail(error, entry.id);
    }
  }

  /** Follows a confirmation another gate prompted, so its reply is caught on this bus too. */
  async function loadMirror(id: string): Promise<void> {
    try {
      const item = await store.getEntry(pendingKey(id));
      const record = readPendingRecord(item?.value);
      if (item === undefined || record === undefined || closed) return;
      if (byId.has(id) || mirrors.has(id) || recentlySettled.has(id)) return;
      const entry = fromRecord(record, true);
      entry.version = item.version;
      addMirror(entry);
    } catch (error) {
      fail(error, id);
    }
  }

  /** Re-reads what may have changed unheard: decisions of held confirmations, new ones elsewhere. */
  async function resync(): Promise<void> {
    if (closed) return;
    const held = [...byId.values(), ...mirrors.values()].filter((entry) => entry.state === 'prompted');
    for (const entry of held) {
      if ((await adoptRecorded(entry)) === undefined) await refresh(entry, null);
    }
    try {
      for await (const item of store.list(pendingPrefix)) {
        const record = readPendingRecord(item.value);
        if (record === undefined || closed || byId.has(record.id) || mirrors.has(record.id)) continue;
        if (recentlySettled.has(record.id)) continue;
        const entry = fromRecord(record, true);
        entry.version = item.version;
        addMirror(entry);
      }
    } catch (error) {
      fail(error);
    }
  }

  async function begin(entry: Entry, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) {
      settle(entry, 'aborted', 'signal');
      return;
    }
    if (signal !== undefined) {
      entry.signal = signal;
      entry.onAbort = () => settle(entry, 'aborted', 'signal');
      signal.addEventListener('abort', entry.onAbort, { once: true });
    }
    byId.set(entry.id, entry);
    if (loading) await ready;
    if (standingMs !== undefined && entry.steps === undefined) {
      const grant = await store.get(allowKey(entry)).catch((error: unknown) => fail(error, entry.id));
      if (typeof grant === 'object' && grant !== null && !Array.isArray(grant) && 'grantedBy' in grant) {
        settle(entry, 'confirmed', 'standing_allowance', { extra: { decidedBy: String(grant.grantedBy) } });
        return;
      }
    }
    if (entry.done) return;
    if (closed) {
      settle(entry, 'aborted', 'closed', { record: false });
      return;
    }
    const current = active.get(entry.sessionKey);
    if (current === undefined) {
      activate(entry);
      return;
    }
    if (whenPending === 'reject') {
      settle(entry, 'refused', 'session_busy');
      return;
    }
    if (whenPending === 'supersede') {
      settle(current, 'superseded', 'superseded');
      activate(entry);
      return;
    }
    const list = queued.get(entry.sessionKey) ?? [];
    if (list.length >= maxQueued) {
      settle(entry, 'refused', 'session_busy');
      return;
    }
    entry.state = 'queued';
    list.push(entry);
    queued.set(entry.sessionKey, list);
    events.emit('queued', { id: entry.id, sessionKey: entry.sessionKey, position: list.length });
  }

  // Restore after the caller has had a chance to subscribe to `error`.
  const ready = Promise.resolve()
    .then(restore)
    .finally(() => {
      loading = false;
    });

  const uninstall = bus.intercept({
    name: 'confirm',
    intercept(message) {
      if (message.kind === 'card_action') {
        const token = cardToken(message.action);
        return token === undefined ? false : onCard(message, token);
      }
      if (loading) return ready.then(() => onMessage(message));
      return active.size === 0 && mirrorOf.size === 0 ? false : onMessage(message);
    },
  });

  const unwatch = store.watch?.(prefix, onChange, {
    onResync: () => {
      void ready.then(resync);
    },
  });

  const gate: ConfirmGate = {
    async request(request: ConfirmRequest) {
      if (closed) throw new ConfirmError('closed', 'The confirmation gate is closed');
      const timeoutMs = assertTimeoutMs(request?.timeoutMs ?? defaultTimeoutMs);
      const address = checkRequest(request);
      const digest = await digestAction(request.action);
      const args = JSON.parse(canonicalJson(request.action.args ?? {})) as JsonValue; // a private copy
      const id = nextId();
      if (typeof id !== 'string' || id === '' || id.includes('.')) {
        throw new ConfirmError('invalid_argument', `generateId returned an unusable id ${String(id)}`, {
          details: { id: String(id) },
        });
      }
      if (closed) throw new ConfirmError('closed', 'The confirmation gate is closed');
      const entry: Entry = {
        id,
        sessionKey: request.sessionKey,
        address,
        action: { name: request.action.name, args, digest },
        summary: request.summary.slice(0, MAX_SUMMARY_LENGTH),
        requester: request.requester,
        approvers: request.approvers === undefined ? approvers : checkApprovers(request.approvers),
        steps: request.steps?.map((step) => ({ prompt: step.prompt, expect: step.expect })),
        timeoutMs,
        requestedAt: clock.now(),
        restored: false,
        remote: false,
        state: 'new',
        step: 0,
        reprompts: 0,
        firstPromptedAt: 0,
        promptedAt: 0,
        expiresAt: undefined,
        done: false,
        io: Promise.resolve(),
      };
      return new Promise<ConfirmDecision>((resolve) => {
        entry.resolve = resolve;
        void begin(entry, request.signal);
      });
    },
    async authorize(decision, action) {
      const id = typeof decision === 'string' ? decision : decision?.id;
      const digest = await digestAction(action);
      const entry = typeof id === 'string' ? await store.getEntry(decisionKey(id)) : undefined;
      const record = readDecisionRecord(entry?.value);
      if (entry === undefined || record === undefined) return { ok: false, code: 'unknown_decision' };
      if (record.outcome !== 'confirmed') return { ok: false, code: 'not_confirmed' };
      if (record.action.digest !== digest) return { ok: false, code: 'action_mismatch' };
      if (record.usedAt !== undefined) return { ok: false, code: 'already_used' };
      const used = await store.compareAndSet(
        entry.key,
        entry.version,
        { ...record, usedAt: clock.now() },
        { ttlMs: auditTtlMs },
      );
      return used.ok ? { ok: true, decision: toDecision(record) } : { ok: false, code: 'already_used' };
    },
    async reconcile(id) {
      const entry = byId.get(id) ?? mirrors.get(id);
      if (entry === undefined) {
        const record = readDecisionRecord(await store.get(decisionKey(id)));
        return record === undefined ? undefined : toDecision(record);
      }
      const decision = await adoptRecorded(entry);
      await entry.io;
      return decision;
    },
    async *audit() {
      for await (const item of store.list(decisionKey(''))) {
        const record = readDecisionRecord(item.value);
        if (record !== undefined) yield toDecision(record);
      }
    },
    pending: () =>
      [...byId.values(), ...mirrors.values()].map((entry) => ({
        id: entry.id,
        sessionKey: entry.sessionKey,
        actionName: entry.action.name,
        requester: entry.requester,
        state: entry.state === 'prompted' ? 'prompted' : 'queued',
        step: entry.step,
        ...(entry.expiresAt === undefined ? {} : { expiresAt: entry.expiresAt }),
        restored: entry.restored,
        remote: entry.remote,
      })),
    ready,
    on: (event, listener) => events.on(event, listener),
    async close() {
      if (closed) return;
      closed = true;
      uninstall();
      unwatch?.();
      for (const entry of [...mirrors.values()]) dropMirror(entry);
      const entries = [...byId.values()];
      for (const entry of entries) settle(entry, 'aborted', 'closed', { record: false });
      deadlines.clear();
      await Promise.all(entries.map((entry) => entry.io));
    },
  };
  return gate;
}

function cardToken(action: JsonValue | undefined): string | undefined {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return undefined;
  const token = (action as { readonly confirmation?: JsonValue }).confirmation;
  return typeof token === 'string' ? token : undefined;
}

/** Records and decisions are plain JSON by construction (strings, numbers, arrays, objects). */
function asJson(value: object): JsonValue {
  return value as unknown as JsonValue; // interfaces lack the index signature JsonValue has
}

function clip(text: string): string {
  return text.slice(0, MAX_REPLY_LENGTH);
}

function checkRequest(request: ConfirmRequest): ReturnType<typeof parseSessionKey> {
  const bad = (message: string): never => {
    throw new ConfirmError('invalid_argument', message);
  };
  if (typeof request?.summary !== 'string' || request.summary.trim() === '')
    bad('summary must be a non-empty string');
  if (typeof request.requester !== 'string' || request.requester === '')
    bad('requester must be a non-empty user id');
  if (typeof request.action !== 'object' || request.action === null) bad('action must be { name, args }');
  if (request.steps !== undefined) {
    const ok =
      Array.isArray(request.steps) &&
      request.steps.length > 0 &&
      request.steps.every(
        (step) =>
          typeof step?.prompt === 'string' &&
          step.prompt !== '' &&
          typeof step.expect === 'string' &&
          normalizeExact(step.expect) !== '',
      );
    if (!ok) bad('steps must be a non-empty list of { prompt, expect } with non-empty texts');
  }
  try {
    return parseSessionKey(request.sessionKey);
  } catch (error) {
    throw new ConfirmError('invalid_argument', `Not a session key: ${String(request.sessionKey)}`, {
      cause: error,
    });
  }
}

function checkApprovers(policy: ApproverPolicy): ApproverPolicy {
  if (policy === 'requester' || policy === 'any') return policy;
  if (
    Array.isArray(policy) &&
    policy.length > 0 &&
    policy.every((id) => typeof id === 'string' && id !== '')
  ) {
    return [...policy];
  }
  throw new ConfirmError(
    'invalid_argument',
    'approvers must be "requester", "any" or a non-empty list of user ids',
    {
      details: { approvers: String(policy) },
    },
  );
}

function checkChoice<T extends string>(value: T, allowed: readonly T[], name: string): T {
  if (allowed.includes(value)) return value;
  throw new ConfirmError('invalid_argument', `${name} must be one of ${allowed.join(', ')}`, {
    details: { [name]: String(value) },
  });
}

function checkCount(value: number, name: string): number {
  if (Number.isInteger(value) && value >= 0 && value <= 1000) return value;
  throw new ConfirmError('invalid_argument', `${name} must be an integer from 0 to 1000`, {
    details: { [name]: value },
  });
}
