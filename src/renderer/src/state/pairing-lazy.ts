// The pairing requests' logic (pairing.ts) is a chunk of its own, fetched at start: what first paint loads
// stays under 500 kB (test/renderer-bundle.test.ts). Its list is read after it subscribes, as before, so a
// request announced while the chunk was on its way is still listed.
import type { PairingRequests } from './pairing'

export type PairingApi = Pick<PairingRequests, 'start' | 'refresh' | 'approve' | 'reject' | 'liftRejection' | 'dispose'>

export function lazyPairing(create: () => Promise<PairingRequests>): PairingApi {
  let loaded: Promise<PairingRequests> | undefined
  let disposed = false
  // a chunk that could not load is asked for again by the next call
  const get = () =>
    (loaded ??= create().catch((err: unknown) => {
      loaded = undefined
      throw err
    }))
  return {
    // never fails the window's start: without the chunk there are just no pairing prompts
    start: async () => {
      const p = await get().catch(() => undefined)
      if (p && !disposed) await p.start()
    },
    refresh: async () => {
      const p = await get().catch(() => undefined)
      if (p && !disposed) await p.refresh()
    },
    approve: async (requestId) => (await get()).approve(requestId),
    reject: async (requestId) => (await get()).reject(requestId),
    liftRejection: async (deviceId) => (await get()).liftRejection(deviceId),
    dispose: () => {
      disposed = true
      void loaded?.then((p) => p.dispose(), () => undefined)
    },
  }
}
