import type { Unsubscribe } from '@parley/core';
import type { ChannelAdapter } from '../adapter.js';
import { BusError } from '../errors.js';
import { publishInbound } from './inbound.js';
import type { BusState } from './state.js';

/**
 * Attaches an adapter for its channel and connects it; resolves to the function that detaches it.
 * @throws BusError `closed` (also when the bus closed while connecting) or `channel_taken`.
 */
export async function attachAdapter(state: BusState, adapter: ChannelAdapter): Promise<Unsubscribe> {
  const { channel } = adapter;
  if (state.closed) throw new BusError('closed', 'The bus is closed');
  if (state.adapters.has(channel)) {
    throw new BusError('channel_taken', `An adapter is already attached for channel ${channel}`, {
      details: { channel },
    });
  }
  state.adapters.set(channel, adapter);
  let disconnect: Unsubscribe | undefined;
  try {
    const stop = await adapter.connect?.((input) => publishInbound(state, input, channel));
    if (typeof stop === 'function') disconnect = stop;
  } catch (error) {
    state.adapters.delete(channel);
    throw error;
  }
  if (state.closed) {
    // close() ran while the adapter was connecting: it found nothing to disconnect.
    state.adapters.delete(channel);
    disconnect?.();
    throw new BusError('closed', 'The bus closed while the adapter was connecting', {
      details: { channel },
    });
  }
  let attached = true;
  const detach = (): void => {
    if (!attached) return;
    attached = false;
    state.adapters.delete(channel);
    state.disconnects.delete(channel);
    disconnect?.();
  };
  state.disconnects.set(channel, detach);
  return detach;
}
