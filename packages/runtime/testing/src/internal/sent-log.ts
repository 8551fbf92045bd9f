// What a fake channel sent: the outbox, every send attempt, the send listeners and the sent waiters.
import type { CardButton, OutboundMessage } from '@parley/bus';
import type { ButtonLabel, FakeChannel, OutboxFilter, SendRecord } from '../channel-types.js';
import { TestingError } from '../errors.js';
import { matchesFilter, readableText, renderMessage } from './outbox.js';

/** @internal A fake channel's record of what it sent, and who waits for or listens to it. */
export interface SentLog {
  readonly sent: OutboundMessage[];
  readonly sends: readonly SendRecord[];
  /** Records a message the platform took: in the outbox, to its waiters, then to the listeners. */
  accepted(message: OutboundMessage): void;
  /** Records a send that failed, and tells the listeners. */
  failed(message: OutboundMessage, error: unknown): void;
  outbox(filter?: OutboxFilter): readonly OutboundMessage[];
  lastSent: FakeChannel['lastSent'];
  buttons: FakeChannel['buttons'];
  /** The newest card sent to the chat (or thread) with a button of that label, and the button. */
  findButton(chatId: string, label: ButtonLabel, threadId: string | undefined): FoundButton;
  onSend: FakeChannel['onSend'];
  waitForSent: FakeChannel['waitForSent'];
  clear(): void;
}

interface FoundButton {
  readonly button: CardButton;
  readonly message: OutboundMessage;
}

/**
 * @internal Creates a fake channel's sent log; `name` names the channel in failures.
 *
 * @throws TestingError `no_button` from `findButton` when no card sent there has such a button.
 */
export function createSentLog(name: string, onSend: ((record: SendRecord) => void) | undefined): SentLog {
  let sent: OutboundMessage[] = [];
  let sends: SendRecord[] = [];
  const sendListeners = new Set<(record: SendRecord) => void>();
  if (onSend !== undefined) sendListeners.add(onSend);
  /** Tells every send listener, in order; the record is already in `sends`. */
  const announce = (record: SendRecord): void => {
    for (const listener of [...sendListeners]) listener(record);
  };
  const waiters: {
    test: (message: OutboundMessage) => boolean;
    resolve: (message: OutboundMessage) => void;
  }[] = [];
  const outbox = (filter: OutboxFilter = {}): readonly OutboundMessage[] =>
    sent.filter((message) => matchesFilter(message, filter));

  return {
    get sent() {
      return sent;
    },
    get sends() {
      return sends;
    },
    accepted(message) {
      const record: SendRecord = { ok: true, message };
      sends.push(record);
      sent.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.test(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
      announce(record);
    },
    failed(message, error) {
      const failed: SendRecord = { ok: false, message, error };
      sends.push(failed);
      announce(failed);
    },
    outbox,
    lastSent: (chatId, threadId) => outbox({ chatId, threadId }).at(-1),
    buttons(chatId, threadId) {
      const cards = outbox({ chatId, threadId }).filter((m) => m.card !== undefined);
      return cards.at(-1)?.card?.buttons ?? [];
    },
    findButton(chatId, label, threadId) {
      const messages = outbox({ chatId, threadId });
      for (let i = messages.length - 1; i >= 0; i--) {
        const message = messages[i] as OutboundMessage;
        const button = message.card?.buttons.find((b) =>
          typeof label === 'string' ? b.label === label : label.test(b.label),
        );
        if (button !== undefined) return { button, message };
      }
      const cards = outbox({ chatId, threadId }).filter((m) => m.card !== undefined);
      const seen =
        cards.length === 0
          ? `no card was sent there (outbox of that chat: ${outbox({ chatId }).length} messages)`
          : `cards there have the buttons: ${cards.map((m) => renderMessage(m)).join('; ')}`;
      throw new TestingError(
        'no_button',
        `${name}: no button labelled ${String(typeof label === 'string' ? JSON.stringify(label) : label)} in a card sent to chat ${chatId}${threadId === undefined ? '' : ` thread ${threadId}`}; ${seen}`,
        { details: { chatId, label: String(label) } },
      );
    },
    onSend(listener) {
      const own = (record: SendRecord): void => listener(record); // one entry per subscription
      sendListeners.add(own);
      return () => {
        sendListeners.delete(own);
      };
    },
    waitForSent(match, filter = {}) {
      const test = (message: OutboundMessage): boolean =>
        matchesFilter(message, filter) &&
        (match === undefined ||
          (typeof match === 'function'
            ? match(message)
            : typeof match === 'string'
              ? readableText(message).includes(match)
              : match.test(readableText(message))));
      const existing = match === undefined ? undefined : [...outbox(filter)].reverse().find(test);
      if (existing !== undefined) return Promise.resolve(existing);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    clear() {
      sent = [];
      sends = [];
    },
  };
}
