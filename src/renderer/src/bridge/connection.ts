// Bridges with a connection of their own (the WebSocket bridge) report its state; IPC has none.
import type { Bridge } from '../../../shared/bridge'

/** Connection status of bridges that have one (the WebSocket bridge reconnects on its own). */
export interface ConnectionAware {
  readonly connection: { state: string; error?: { message: string } }
  onConnectionChange(listener: (s: { state: string; error?: { message: string } }) => void): () => void
}

export function isConnectionAware(b: Bridge): b is Bridge & ConnectionAware {
  return typeof (b as Partial<ConnectionAware>).onConnectionChange === 'function'
}
