// Renderer entry: pick the bridge transport, create the stores and the controller, render.
import { StrictMode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { App } from './App'
import { AppContext } from './app-context'
import type { Bridge } from '../../shared/bridge'
import { createBridge, PairingRequiredError, TokenChangedError } from './bridge'
import { Controller } from './state/controller'
import { createAppStores, saveDraftsNow } from './state/stores'
import './styles.css'

async function boot() {
  const root = createRoot(document.getElementById('root')!)
  let bridge
  try {
    bridge = await createBridge()
  } catch (err) {
    // the token and pairing screens are chunks of their own: what first paint loads stays under 500 kB
    // (test/renderer-bundle.test.ts)
    const { TokenChangedScreen } = await import('./components/TokenChanged')
    if (err instanceof TokenChangedError) return root.render(<TokenChangedScreen detail={err.message} reason={err.reason} />)
    if (err instanceof PairingRequiredError) {
      // this browser is not paired yet: wait for an approval, asking again now and then
      const { PairingWaitScreen } = await import('./components/PairingWait')
      return root.render(
        <PairingWaitScreen
          initial={err}
          connect={createBridge}
          onConnected={(b) => void startApp(root, b)}
          onRefused={(e) => root.render(<TokenChangedScreen detail={e.message} reason={e.reason} />)}
        />,
      )
    }
    root.render(
      <div className="fatal" role="alert">
        <h1>Loopdesk cannot reach its runtime</h1>
        <p>{err instanceof Error ? err.message : String(err)}</p>
        <p>Open this page from the link printed by <code>loopdesk gateway run</code> (it carries the access token).</p>
      </div>,
    )
    return
  }
  await startApp(root, bridge)
}

async function startApp(root: Root, bridge: Bridge) {
  const stores = createAppStores()
  const controller = new Controller(bridge, stores)
  window.addEventListener('beforeunload', () => saveDraftsNow(stores))
  root.render(
    <StrictMode>
      <AppContext.Provider value={{ controller, stores }}>
        <App />
      </AppContext.Provider>
    </StrictMode>,
  )
  await controller.start()
  // Pay one-time costs (grammars, lexer, first render of the views) while idle, not during the first reply.
  // The warm-up is a chunk of its own (its sample conversation included): first paint does not need it.
  void import('./warm-up').then(({ warmUp }) => warmUp({ controller, stores }), () => undefined)
}

void boot()
