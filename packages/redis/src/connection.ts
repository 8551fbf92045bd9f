import type { Redis } from 'ioredis';
import { RedisStoreError } from './errors.js';

/** Runs commands on the caller's client, failing fast and typed while the connection is down. */
export interface Connection {
  /** Runs `command`; rejects with `connection_lost` at once while the connection is down. */
  run<T>(command: () => Promise<T>, failure: 'script_failed' | 'command_failed', key?: string): Promise<T>;
  /** Runs the write script by EVALSHA, loading it again when Redis has lost it (a restart). */
  script(keys: readonly string[], args: readonly string[], key: string): Promise<string[]>;
  /** Stops listening to the client; the client itself stays open. */
  detach(): void;
}

export interface ConnectionHooks {
  onState(state: 'lost' | 'ready'): void;
}

interface InFlight {
  readonly key: string | undefined;
  reject(error: RedisStoreError): void;
}

export function connect(redis: Redis, source: string, hooks: ConnectionHooks): Connection {
  const inFlight = new Set<InFlight>();
  // A client already retrying when the store is created fails fast from the start.
  let lost = redis.status === 'reconnecting' || redis.status === 'close';
  let sha: string | undefined;
  let learning = false;

  /** Asks Redis for the script's digest once, in the background; a failure only means EVAL next time. */
  function learnDigest(): void {
    if (learning) return;
    learning = true;
    run(() => redis.script('LOAD', source) as Promise<string>, 'script_failed').then(
      (digest) => {
        sha = digest;
      },
      () => {
        learning = false;
      },
    );
  }

  const onClose = (): void => {
    const dropped = [...inFlight];
    inFlight.clear();
    for (const call of dropped) {
      call.reject(
        new RedisStoreError('connection_lost', 'The Redis connection closed while the call was in flight', {
          details: { sent: true, ...(call.key === undefined ? {} : { key: call.key }) },
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
  };
  redis.on('close', onClose);
  redis.on('ready', onReady);

  function run<T>(
    command: () => Promise<T>,
    failure: 'script_failed' | 'command_failed',
    key?: string,
  ): Promise<T> {
    if (lost || redis.status === 'end') {
      return Promise.reject(
        new RedisStoreError('connection_lost', `Redis is unreachable (connection ${redis.status})`, {
          details: { sent: false, ...(key === undefined ? {} : { key }) },
        }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const call: InFlight = { key, reject };
      inFlight.add(call);
      command().then(
        (value) => {
          inFlight.delete(call);
          resolve(value);
        },
        (error: unknown) => {
          inFlight.delete(call);
          reject(toStoreError(error, failure, key));
        },
      );
    });
  }

  return {
    run,
    async script(keys, args, key) {
      const all = [...keys, ...args];
      if (sha !== undefined) {
        const known = sha;
        try {
          return (await run(
            () => redis.evalsha(known, keys.length, ...all),
            'script_failed',
            key,
          )) as string[];
        } catch (error) {
          if (!isNoScript(error)) throw error;
        }
      }
      // EVAL runs the script and caches it in Redis; SCRIPT LOAD only returns its digest.
      const result = (await run(
        () => redis.eval(source, keys.length, ...all),
        'script_failed',
        key,
      )) as string[];
      if (sha === undefined) learnDigest();
      return result;
    },
    detach() {
      redis.off('close', onClose);
      redis.off('ready', onReady);
    },
  };
}

/** A reply error is Redis saying no; anything else from ioredis means the transport failed. */
export function toStoreError(
  error: unknown,
  failure: 'script_failed' | 'command_failed',
  key: string | undefined,
): RedisStoreError {
  const keyDetail = key === undefined ? {} : { key };
  if (isReplyError(error)) {
    if (error.message.startsWith('WRONGTYPE')) {
      return new RedisStoreError('corrupt_value', `The key "${key}" does not hold a value of this store`, {
        details: { ...keyDetail, reason: 'wrong type' },
        cause: error,
      });
    }
    return new RedisStoreError(failure, `Redis refused the command: ${error.message}`, {
      details: keyDetail,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RedisStoreError('connection_lost', `The Redis connection failed: ${message}`, {
    details: { ...keyDetail, sent: true },
    cause: error,
  });
}

function isReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}

function isNoScript(error: unknown): boolean {
  const cause = error instanceof RedisStoreError ? error.cause : undefined;
  return cause instanceof Error && cause.message.startsWith('NOSCRIPT');
}
