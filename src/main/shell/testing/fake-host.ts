// A RuntimeHost whose every handler records its call; events are pushed with `emit`.
import { vi } from 'vitest'
import type { AnyEvent } from '../../../shared/events'
import { METHOD_NAMES } from '../../../shared/methods'
import type { Handlers } from '../../api/dispatch'
import type { RuntimeHost } from '../../api/host'

export interface FakeHost extends RuntimeHost {
  calls: Array<{ method: string; params: unknown; ctx: unknown }>
  emit(event: AnyEvent): void
  listenerCount(): number
  shutdown: ReturnType<typeof vi.fn> & RuntimeHost['shutdown']
}

export function createFakeHost(config: Record<string, unknown> = {}): FakeHost {
  const calls: FakeHost['calls'] = []
  const listeners = new Set<(e: AnyEvent) => void>()
  const handlers = {} as Record<string, (params: unknown, ctx: unknown) => Promise<unknown>>
  for (const m of METHOD_NAMES) {
    handlers[m] = async (params, ctx) => {
      calls.push({ method: m, params, ctx })
      if (m === 'config.get') return { handled: m, path: '/x', exists: true, valid: true, hash: 'h', config, issues: [], secrets: {} }
      return { handled: m }
    }
  }
  return {
    handlers: handlers as unknown as Handlers,
    calls,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    emit(event) {
      for (const l of [...listeners]) l(event)
    },
    listenerCount: () => listeners.size,
    agentFinal: async () => {
      throw new Error('not used')
    },
    info: { version: '0.0.0-test', stateDir: '/tmp/x', configPath: '/tmp/x/loopdesk.json', startedAt: 0 },
    shutdown: vi.fn(async () => {}) as FakeHost['shutdown'],
  }
}
