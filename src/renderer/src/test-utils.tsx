// Helpers for component tests: a full app wired to a FakeBridge, with rendering flushed promptly.
import { act, configure, render } from '@testing-library/react'
import { App } from './App'
import { AppContext } from './app-context'
import { FakeBridge, type FakeBridgeOptions, type FakeStep } from './bridge/fake-bridge'
import { Controller } from './state/controller'
import { createAppStores } from './state/stores'

// The machine may be busy (parallel test runs on 2 cores): give async queries room.
configure({ asyncUtilTimeout: 5000 })

// jsdom has no layout: give scroll containers a viewport and rows a height so the virtualized lists
// render their first items (≈20 conversation rows, ≈125 inspector rows).
if (typeof HTMLElement !== 'undefined' && !('__viewportPatched' in HTMLElement.prototype)) {
  Object.defineProperty(HTMLElement.prototype, '__viewportPatched', { value: true })
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return this.classList.contains('conversation-scroll') ? 800 : this.classList.contains('inspector-log') ? 5000 : 0
    },
  })
  // Virtualized rows measure a fixed height (0 would put every row at offset 0 and confuse ranges).
  Object.defineProperty(HTMLElement.prototype, 'offsetHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return this.classList.contains('row') ? 40 : 0
    },
  })
  // The conversation's content height is its list's height (the virtualizer writes it): scrolling to
  // the end then means what it means in a browser.
  Object.defineProperty(HTMLElement.prototype, 'scrollHeight', {
    configurable: true,
    get(this: HTMLElement) {
      if (!this.classList.contains('conversation-scroll')) return 0
      const list = this.querySelector<HTMLElement>('.conversation-list')
      return Math.max(this.clientHeight, parseFloat(list?.style.height ?? '') || 0)
    },
  })
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', {
    configurable: true,
    get(this: HTMLElement) {
      return this.classList.contains('conversation-scroll') || this.classList.contains('inspector-log') ? 800 : 0
    },
  })
}

export async function renderApp(opts: FakeBridgeOptions = {}, bridge = new FakeBridge({ tickMs: 1, chunkChars: 24, ...opts })) {
  const stores = createAppStores()
  const controller = new Controller(bridge, stores, (cb) => setTimeout(cb, 0))
  const utils = render(
    <AppContext.Provider value={{ controller, stores }}>
      <App />
    </AppContext.Provider>,
  )
  await act(() => controller.start())
  return { bridge, stores, controller, ...utils }
}

export const LONG = { timeout: 8000 }

/** A scripted exec call that asks for approval, then reports `ran <command>`. */
export const approvalExec = (command: string): Extract<FakeStep, { kind: 'tool' }> => ({
  kind: 'tool',
  name: 'exec',
  args: { command },
  result: { content: [{ type: 'text', text: `ran ${command}` }] },
  approval: true,
  durationMs: 10,
})

/** Lets timers and promises run inside act() (streams advance, the frame scheduler flushes). */
export async function settle(ms = 20) {
  await act(() => new Promise((r) => setTimeout(r, ms)))
}

export type ConnectionStatus = { state: string; error?: { message: string; details?: unknown } }

/** The FakeBridge with a connection of its own, like the WebSocket bridge: tests drop and restore it with set(). */
export class ConnectedFake extends FakeBridge {
  connection: ConnectionStatus = { state: 'open' }
  /** events sent while the connection is down never arrive, as over a real socket (off: tests that only look at the UI) */
  lossy = false
  private statusListeners = new Set<(s: ConnectionStatus) => void>()
  subscribe(filter: Parameters<FakeBridge['subscribe']>[0], listener: Parameters<FakeBridge['subscribe']>[1]) {
    return super.subscribe(filter, (ev) => {
      if (!this.lossy || this.connection.state === 'open') listener(ev)
    })
  }
  onConnectionChange(l: (s: ConnectionStatus) => void) {
    this.statusListeners.add(l)
    return () => this.statusListeners.delete(l)
  }
  set(s: ConnectionStatus) {
    this.connection = s
    for (const l of this.statusListeners) l(s)
  }
}
