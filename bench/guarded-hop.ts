// The confirm round trip written by hand with the guarantees the gate keeps beyond the equal-work
// hop, and no Parley piece: a reference for reading how much of the gate's time is those
// guarantees and how much is how the gate is built. Each guarantee is done the cheapest honest
// way one process allows (a synchronous Map store, Node's own timers, one EventEmitter).
import { EventEmitter } from 'node:events';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** What a versioned store keeps per key: JSON text, its version, when it expires. */
interface Slot {
  json: string;
  version: number;
  expiresAt: number;
}

/** A synchronous compare-and-set store of JSON texts with versions and expiry. */
function versionedStore(now: () => number) {
  const data = new Map<string, Slot>();
  let versions = 0;
  const live = (key: string): Slot | undefined => {
    const slot = data.get(key);
    if (slot !== undefined && slot.expiresAt <= now()) {
      data.delete(key);
      return undefined;
    }
    return slot;
  };
  return {
    /** Writes `value` when the key's version is `expected` (`null`: absent); the new version, or `undefined` when another write came first. */
    compareAndSet(key: string, expected: number | null, value: unknown, ttlMs: number): number | undefined {
      if ((live(key)?.version ?? null) !== expected) return undefined;
      const version = ++versions;
      data.set(key, { json: JSON.stringify(value), version, expiresAt: now() + ttlMs });
      return version;
    },
    /** Deletes the key when its version is `expected`. */
    deleteIf(key: string, expected: number): boolean {
      if (live(key)?.version !== expected) return false;
      return data.delete(key);
    },
  };
}

/** What a request must be: every field checked before anything is written. */
interface Request {
  sessionKey: string;
  action: { name: string; args?: Record<string, unknown> };
  summary: string;
  requester: string;
}

const SESSION_KEY = /^([a-z][a-z0-9_-]*):(.+)$/;
const FORMAT_CHARS = /\p{Cf}/gu;
const CONFIRM = new Set(['确认', 'confirm', 'yes', 'y', 'ok']);
const CANCEL = new Set(['取消', 'cancel', 'no', 'n']);
/** The canonical text of plain JSON arguments: keys sorted, so equal arguments hash equal. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * Builds the guarded hop: `request` resolves with the decision, once a reply decided it or its
 * deadline passed. `send` is the platform's send (awaited); a reply comes back through `inbound`,
 * which says whether it was taken. `now` is the clock (the gate's bench runs on a manual one).
 */
export function guardedHop(send: (chatId: string, text: string) => Promise<void>, now: () => number) {
  const store = versionedStore(now);
  const events = new EventEmitter();
  type Waiter = {
    id: string;
    record: Record<string, unknown>;
    version: number;
    delivered: number; // the delivery's place in the order of events, 0 until then
    expiresAt: number;
    timer: NodeJS.Timeout;
    resolve: (decision: { outcome: string; reason: string }) => void;
  };
  const waiting = new Map<string, Waiter>();
  const recent = new Map<string, number>(); // recently decided ids, the oldest dropped past 1 000
  let order = 0;
  let ids = 0;

  const decide = (
    sessionKey: string,
    waiter: Waiter,
    outcome: string,
    reason: string,
    by: string,
    reply: string,
  ) => {
    waiting.delete(sessionKey);
    clearTimeout(waiter.timer);
    const at = now();
    const record = waiter.record;
    const decision = {
      id: waiter.id,
      sessionKey,
      action: record.action,
      summary: record.summary,
      requester: record.requester,
      outcome,
      reason,
      requestedAt: record.requestedAt,
      decidedAt: at,
      decidedBy: by,
      reply,
      promptedAt: record.promptedAt,
      expiresAt: waiter.expiresAt,
    };
    // First writer wins: a decision another replica recorded first is the decision.
    if (store.compareAndSet(`d:${waiter.id}`, null, decision, 7 * 86_400_000) !== undefined) {
      store.deleteIf(`p:${waiter.id}`, waiter.version);
    }
    recent.set(waiter.id, at);
    if (recent.size > 1_000) recent.delete(recent.keys().next().value as string);
    events.emit('decided', decision);
    waiter.resolve(decision);
  };

  /** A reply: taken when a confirmation waits in its session, arrived after delivery, from who may answer, in time. */
  const inbound = (message: { channel: string; chatId: string; senderId: string; text: string }): boolean => {
    const sessionKey = `${message.channel}:${message.chatId}`;
    const arrival = ++order;
    const waiter = waiting.get(sessionKey);
    if (waiter === undefined) return false;
    if (waiter.delivered === 0 || arrival < waiter.delivered) return false; // before its prompt was out
    if (message.senderId !== waiter.record.requester) return false; // who may answer
    if (now() >= waiter.expiresAt) return false; // its timer settles it
    const word = message.text.normalize('NFKC').replace(FORMAT_CHARS, '').toLowerCase().trim();
    const outcome = CONFIRM.has(word) ? 'confirmed' : CANCEL.has(word) ? 'cancelled' : undefined;
    if (outcome === undefined) return false;
    decide(sessionKey, waiter, outcome, 'reply', message.senderId, message.text);
    return true;
  };

  const request = (req: Request, timeoutMs = 300_000): Promise<{ outcome: string; reason: string }> => {
    const parsed = SESSION_KEY.exec(req.sessionKey);
    if (parsed === null) return Promise.reject(new Error('invalid sessionKey'));
    if (typeof req.action?.name !== 'string' || req.action.name === '')
      return Promise.reject(new Error('invalid action'));
    if (typeof req.summary !== 'string' || req.summary.length > 4_000)
      return Promise.reject(new Error('invalid summary'));
    if (typeof req.requester !== 'string' || req.requester === '')
      return Promise.reject(new Error('invalid requester'));
    if (waiting.has(req.sessionKey)) return Promise.reject(new Error('busy'));
    const args = req.action.args ?? {};
    const digest = bytesToHex(sha256(utf8ToBytes(`${JSON.stringify(req.action.name)}\n${canonical(args)}`)));
    const id = `cfm_${++ids}`;
    const at = now();
    const record: Record<string, unknown> = {
      rev: 1,
      id,
      sessionKey: req.sessionKey,
      action: { name: req.action.name, args, digest },
      summary: req.summary,
      requester: req.requester,
      approvers: 'requester',
      steps: null,
      step: 0,
      reprompts: 0,
      timeoutMs,
      requestedAt: at,
      firstPromptedAt: at,
      promptedAt: at,
      expiresAt: at + timeoutMs,
    };
    const version = store.compareAndSet(`p:${id}`, null, record, timeoutMs);
    if (version === undefined) return Promise.reject(new Error('id taken'));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        id,
        record,
        version,
        delivered: 0,
        expiresAt: at + timeoutMs,
        timer: setTimeout(() => decide(req.sessionKey, waiter, 'expired', 'timeout', '', ''), timeoutMs),
        resolve,
      };
      waiting.set(req.sessionKey, waiter);
      events.emit('requested', { id, sessionKey: req.sessionKey });
      void send(parsed[2] as string, `${req.summary}? 确认 / 取消`).then(() => {
        // The delivery, written into the pending record with a compare-and-set on its version.
        const delivered = ++order;
        const next = Object.assign({}, record, { rev: 2, deliveredAt: now() });
        const written = store.compareAndSet(`p:${id}`, waiter.version, next, timeoutMs);
        if (written === undefined) return; // another replica wrote it: it is that one's now
        waiter.record = next;
        waiter.version = written;
        waiter.delivered = delivered;
        events.emit('prompted', { id, sessionKey: req.sessionKey });
      });
    });
  };

  return { request, inbound, events };
}
