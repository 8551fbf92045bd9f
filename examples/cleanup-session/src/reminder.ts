// The follow-up reminder asked for at close ("remind me in 7 days"): stored with the session as an
// absolute due time, armed as a timer on the injected clock, sent through the notifier when due and
// then marked sent in the same stored session (compare-and-set). A restarted host re-arms it from
// the record; one that comes up after the due time sends it at once. Sending happens before the
// mark is written, so a crash between the two sends it again on resume: at least once.
import type { Clock, TimerHandle } from '@parley/core';
import type { Notifier } from './adapters.js';
import { redactText } from './redact.js';
import type { HostData } from './session-json.js';

/** A reminder as stored in the session's host data. */
export interface Reminder {
  readonly dueAt: number;
  /** Where to send it: the session's notification mode, or `chat` when that was `none`. */
  readonly mode: string;
  readonly text: string;
  readonly sentAt: number | null;
}

/** `remind_in_7d` → 7 days in ms; anything else → undefined (no reminder). */
export function reminderDelayMs(preference: unknown): number | undefined {
  const days = typeof preference === 'string' ? /^remind_in_(\d+)d$/.exec(preference)?.[1] : undefined;
  return days === undefined ? undefined : Number(days) * 24 * 60 * 60_000;
}

/** The reminder the close step's `followup_preference` asks for, due `remind_in_<n>d` from `now`. */
export function planReminder(
  sessionId: string,
  fields: { readonly [step: string]: { readonly [field: string]: unknown } | undefined },
  data: HostData,
  now: number,
): Reminder | undefined {
  const delay = reminderDelayMs(fields.close?.followup_preference);
  if (delay === undefined || data.plan === null) return undefined;
  const notify = String(fields.notify?.notify_mode ?? 'none');
  const { action, targets } = data.plan;
  const done = data.execution?.completed.length ?? 0;
  const text = `Follow-up on cleanup ${sessionId}: ${action} done for ${done} of ${targets.length} target(s). Check that the content stays down.`;
  return {
    dueAt: now + delay,
    mode: notify === 'none' ? 'chat' : notify,
    text: redactText(text),
    sentAt: null,
  };
}

export interface ReminderTimer {
  /** Arms the timer for a reminder not sent yet (again after a restart); replaces an armed one. */
  arm(reminder: Reminder): void;
  /** Clears the timer (the process stops); the stored reminder stays. */
  stop(): void;
  /** Resolves when a reminder that fired has been sent and marked. */
  settled(): Promise<void>;
}

/** One reminder timer per host: `markSent` writes the sent time into the stored session. */
export function createReminderTimer(options: {
  readonly clock: Clock;
  readonly notifier: Notifier;
  readonly markSent: (reminder: Reminder) => Promise<void>;
}): ReminderTimer {
  const { clock, notifier } = options;
  let timer: TimerHandle | undefined;
  const clear = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  let running: Promise<void> = Promise.resolve();
  const fire = async (reminder: Reminder): Promise<void> => {
    await notifier.send({ mode: reminder.mode, text: reminder.text });
    const sent = { ...reminder, sentAt: clock.now() };
    await options.markSent(sent);
  };
  return {
    arm(reminder) {
      clear();
      if (reminder.sentAt !== null) return;
      timer = clock.setTimeout(
        () => {
          timer = undefined;
          running = fire(reminder);
        },
        Math.max(0, reminder.dueAt - clock.now()),
      );
    },
    stop: clear,
    settled: () => running,
  };
}
