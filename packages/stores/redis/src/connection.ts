import type { Redis } from 'ioredis';
import { RedisStoreError } from './errors.js';

/** Runs commands on the caller's client, failing fast and typed while the connection is down. */
export interface Connection {
  /** Runs `command`; rejects with `connection_lost` at once while the connection is down. */
  run<T>(command: () => Promise<T>, failure: Failure, details?: Details): Promise<T>;
  /** Runs the write script by EVALSHA, loading it again when Redis has lost it (a restart). */
  script(keys: readonly string[], args: readonly string[], details: Details): Promise<string[]>;
  /** Resolves once the connection is up (at once when it is); `detach` resolves it too. */
  ready(): Promise<void>;
  /** Stops listening to the client; the client itself stays open. */
  detach(): void;
}

export interface ConnectionHooks {
  onState(state: 'lost' | 'ready'): void;
}

type Failure = 'script_failed' | 'command_failed';
/** Facts about the call that its error carries: the store key, or the SCAN pattern. */
type Details = Readonly<Record<string, string>>;

interface InFlight {
  readonly details: Details;
  reject(error: RedisStoreError): void;
}

export function connect(redis: Redis, source: string, hooks: ConnectionHooks): Connection {
  const inFlight = new Set<InFlight>();
  // A client already retrying when the store is created fails fast from the start.
  let lost = redis.status === 'reconnecting' || redis.status === 'close';
  let sha: string | undefined;
  let waiting: (() => void)[] = [];
  const release = (): void => {
    const due = waiting;
    waiting = [];
    for (const resolve of due) resolve();
  };

  const onClose = (): void => {
    const dropped = [...inFlight];
    inFlight.clear();
    for (const call of dropped) {
      call.reject(
        new RedisStoreError('connection_lost', 'The Redis connection closed while the call was in flight', {
          details: { ...call.details, sent: true },
        }),
      );
    }
    if (!lost) {
      lost = true;
      hooks.onState('lost');
    }
  };
  const onReady = (): void => {
    if (!lost) return;
    lost = false;
    hooks.onState('ready');
    release();
  };
  redis.on('close', onClose);
  redis.on('ready', onReady);

  function run<T>(command: () => Promise<T>, failure: Failure, details: Details = {}): Promise<T> {
    if (lost || redis.status === 'end') {
      return Promise.reject(
        new RedisStoreError('connection_lost', `Redis is unreachable (connection ${redis.status})`, {
          details: { ...details, sent: false },
        }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const call: InFlight = { details, reject };
      inFlight.add(call);
      command().then(
        (value) => {
          inFlight.delete(call);
          resolve(value);
        },
        (error: unknown) => {
          inFlight.delete(call);
          reject(toStoreError(error, failure, details));
        },
      );
    });
  }

  return {
    run,
    async script(keys, args, details) {
      const all = [...keys, ...args];
      // Loaded once per store; EVALSHA then sends only the digest.
      sha ??= await run(() => redis.script('LOAD', source) as Promise<string>, 'script_failed', details);
      const digest = sha;
      try {
        return (await run(
          () => redis.evalsha(digest, keys.length, ...all),
          'script_failed',
          details,
        )) as string[];
      } catch (error) {
        if (!isNoScript(error)) throw error;
      }
      // A restarted (or flushed) Redis has lost its script cache; EVAL runs and caches it again.
      return (await run(() => redis.eval(source, keys.length, ...all), 'script_failed', details)) as string[];
    },
    ready() {
      if (!lost) return Promise.resolve();
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    detach() {
      redis.off('close', onClose);
      redis.off('ready', onReady);
      release();
    },
  };
}

/** A reply error is Redis saying no; anything else from ioredis means the transport failed. */
export function toStoreError(error: unknown, failure: Failure, details: Details): RedisStoreError {
  if (isReplyError(error)) {
    if (error.message.startsWith('WRONGTYPE')) {
      return new RedisStoreError(
        'corrupt_value',
        `The key "${details.key}" does not hold a value of this store`,
        {
          details: { ...details, reason: 'wrong type' },
          cause: error,
        },
      );
    }
    return new RedisStoreError(failure, `Redis refused the command: ${error.message}`, {
      details,
      cause: error,
    });
  }
  return new RedisStoreError('connection_lost', `The Redis connection failed: ${String(error)}`, {
    details: { ...details, sent: true },
    cause: error,
  });
}

function isReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}

/** `run` rejects only with RedisStoreError, whose cause is the ioredis error. */
function isNoScript(error: unknown): boolean {
  return String((error as RedisStoreError).cause).startsWith('ReplyError: NOSCRIPT');
}
