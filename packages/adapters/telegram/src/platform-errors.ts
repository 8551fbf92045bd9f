import { TelegramAdapterError } from './errors.js';

/** The fields of grammY's `GrammyError` (an `ok: false` answer of the Bot API) that matter here. */
interface BotApiFailure {
  readonly error_code: number;
  readonly description: string;
  readonly method?: string;
  readonly parameters?: { readonly retry_after?: number };
}

function isBotApiFailure(error: unknown): error is BotApiFailure {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { error_code?: unknown }).error_code === 'number' &&
    typeof (error as { description?: unknown }).description === 'string'
  );
}

/**
 * A grammY error as a {@link TelegramAdapterError}: 429 → `rate_limited` with `retryAfterMs`, any
 * other Bot API refusal → `platform_error`, anything else (grammY's `HttpError`: the request never
 * got an answer) → `network_error`. Read by shape, so two copies of grammY in one process work too.
 */
export function toAdapterError(error: unknown): TelegramAdapterError {
  if (isBotApiFailure(error)) {
    const method = error.method;
    const retryAfter = error.parameters?.retry_after;
    if (error.error_code === 429) {
      return new TelegramAdapterError('rate_limited', `Telegram: ${error.description}`, {
        details: {
          method,
          ...(typeof retryAfter === 'number' ? { retryAfterMs: retryAfter * 1000 } : {}),
        },
        cause: error,
      });
    }
    return new TelegramAdapterError('platform_error', `Telegram: ${error.description}`, {
      details: { method, errorCode: error.error_code, description: error.description },
      cause: error,
    });
  }
  return new TelegramAdapterError('network_error', `Telegram could not be reached: ${String(error)}`, {
    cause: error,
  });
}
