import type { JsonValue, Store } from '@parley/core';
import {
  byteLength,
  decodeData,
  encodeStored,
  encodeValue,
  MAX_CALLBACK_DATA_BYTES,
} from '../callback-data.js';
import { TelegramAdapterError } from '../errors.js';

const BUTTON_PREFIX = 'parley:telegram:button:';

/** What the adapter's buttons need: where long values go, for how long, and their keys. */
export interface ButtonValues {
  readonly buttonStore: Store | undefined;
  readonly buttonTtlMs: number;
  readonly nextId: () => string;
  /** Told when a stored value could not be read back. */
  readonly onLookupError: (error: unknown) => void;
}

/** The `callback_data` of a button: its value inline, or a key to it in `buttonStore` when too long. */
export async function callbackDataOf(values: ButtonValues, label: string, value: JsonValue): Promise<string> {
  const { buttonStore } = values;
  const data = encodeValue(value);
  const bytes = byteLength(data);
  if (bytes <= MAX_CALLBACK_DATA_BYTES) return data;
  if (buttonStore === undefined) {
    throw new TelegramAdapterError(
      'callback_data_too_long',
      `The button "${label}" needs ${bytes} bytes of callback_data; Telegram allows ${MAX_CALLBACK_DATA_BYTES}. Pass a buttonStore to keep long values on your side.`,
      { details: { label, bytes, limit: MAX_CALLBACK_DATA_BYTES } },
    );
  }
  const key = values.nextId();
  await buttonStore.set(`${BUTTON_PREFIX}${key}`, value, { ttlMs: values.buttonTtlMs });
  const stored = encodeStored(key);
  if (byteLength(stored) > MAX_CALLBACK_DATA_BYTES) {
    throw new TelegramAdapterError(
      'invalid_argument',
      `generateId returned a key too long for callback_data`,
      {
        details: { key },
      },
    );
  }
  return stored;
}

/** The value of a clicked button, or `undefined` when its stored value is gone. */
export async function actionOf(
  values: ButtonValues,
  data: string | undefined,
): Promise<JsonValue | undefined | 'foreign'> {
  const decoded = decodeData(data);
  if (decoded.kind === 'foreign') return 'foreign';
  if (decoded.kind === 'value') return decoded.value;
  try {
    return await values.buttonStore?.get(`${BUTTON_PREFIX}${decoded.key}`);
  } catch (error) {
    values.onLookupError(error);
    return undefined;
  }
}
