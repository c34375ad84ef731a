// Renderer entry: pick the bridge transport, create the stores and the controller, render.
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { AppContext } from './app-context'
import { Lexer } from 'marked'
import { createBridge } from './bridge'
import { warmUpHighlighter } from './markdown/highlight'
import { Controller } from './state/controller'
import { createAppStores, saveDraftsNow } from './state/stores'
import './styles.css'

async function boot() {
  const root = createRoot(document.getElementById('root')!)
  let bridge
  try {
    bridge = await createBridge()
  } catch (err) {
    root.render(
      <div className="fatal" role="alert">
        <h1>Loopdesk cannot reach its runtime</h1>
        <p>{err instanceof Error ? err.message : String(err)}</p>
        <p>Open this page from the link printed by <code>loopdesk gateway run</code> (it carries the access token).</p>
      </div>,
    )
    return
  }
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
  // Pay one-time costs (grammar compilation, lexer warm-up) while idle, not during the first reply.
  const idle = (cb: () => void) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(cb, { timeout: 3000 }) : setTimeout(cb, 500))
  idle(() => {
    warmUpHighlighter()
    idle(() => void Lexer.lex('# a\n\n- b *c* `d` [e](https://x)\n\n```ts\nf()\n```\n\n| a |\n|---|\n| b |'))
  })
}

void boot()
