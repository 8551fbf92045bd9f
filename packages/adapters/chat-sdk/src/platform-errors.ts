import { ChatSdkAdapterError } from './errors.js';

/** What a thrown Chat SDK error may carry, read by shape (two copies of `chat` in a process work too). */
interface ChatFailure {
  readonly code?: unknown;
  readonly retryAfterMs?: unknown;
  /** `AdapterRateLimitError` of `@chat-adapter/shared`: seconds. */
  readonly retryAfter?: unknown;
  readonly status?: unknown;
  readonly cause?: unknown;
  /** `NetworkError` of `@chat-adapter/shared` keeps the platform's error here. */
  readonly originalError?: unknown;
  readonly message?: unknown;
}

function fieldsOf(error: unknown): ChatFailure {
  return typeof error === 'object' && error !== null ? (error as ChatFailure) : {};
}

/** Discord and Slack say how long to wait in a 429 body: `retry_after` in seconds. */
function retryAfterOf(body: unknown): number | undefined {
  if (typeof body !== 'string') return undefined;
  const match = /"retry_after"\s*:\s*([0-9.]+)/.exec(body);
  return match === null ? undefined : Math.ceil(Number(match[1]) * 1000);
}

/**
 * A Chat SDK error as a {@link ChatSdkAdapterError}: its `RateLimitError` (code `RATE_LIMITED`) or a
 * platform answer with HTTP status 429 → `rate_limited` (with `retryAfterMs` when known); another
 * platform answer with a status (the adapters' `NetworkError` around the platform's API error) or a
 * Chat SDK error code (`ValidationError`, `NotImplementedError`…) → `platform_error`; anything else
 * (no answer at all) → `network_error`.
 */
export function toAdapterError(error: unknown, platform: string): ChatSdkAdapterError {
  const outer = fieldsOf(error);
  const inner = fieldsOf(outer.cause ?? outer.originalError);
  const status = typeof inner.status === 'number' ? inner.status : outer.status;
  const text = typeof outer.message === 'string' ? outer.message : String(error);
  if (outer.code === 'RATE_LIMITED' || status === 429) {
    const retryAfterMs =
      typeof outer.retryAfterMs === 'number'
        ? outer.retryAfterMs
        : typeof outer.retryAfter === 'number'
          ? outer.retryAfter * 1000
          : retryAfterOf(inner.message ?? text);
    return new ChatSdkAdapterError('rate_limited', `${platform}: ${text}`, {
      details: { platform, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
      cause: error,
    });
  }
  if (typeof status === 'number') {
    return new ChatSdkAdapterError('platform_error', `${platform}: ${text}`, {
      details: { platform, status },
      cause: error,
    });
  }
  if (typeof outer.code === 'string' && outer.code !== 'NETWORK_ERROR') {
    return new ChatSdkAdapterError('platform_error', `${platform}: ${text}`, {
      details: { platform, chatCode: outer.code },
      cause: error,
    });
  }
  return new ChatSdkAdapterError('network_error', `${platform} could not be reached: ${text}`, {
    details: { platform },
    cause: error,
  });
}
