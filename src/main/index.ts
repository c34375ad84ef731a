// Electron main entry. Thin on purpose: it only wires the Electron-free runtime and gateway into the
// shell (src/main/shell), which owns everything Electron-specific.
import { join } from 'node:path'
import type { GatewayLogger } from './gateway'
import type { Runtime } from './runtime/runtime'
import { startShell } from './shell/app'

// Gateway messages already name their source ("gateway: …").
const gatewayLog: GatewayLogger = {
  info: (m) => console.info(m),
  warn: (m) => console.warn(m),
  error: (m) => console.error(m),
}

// Bundled layout: out/main/index.js, out/preload/index.cjs, out/renderer/.
const here = import.meta.dirname

// The runtime and gateway (pi, the model SDK layer, ws) are loaded with dynamic imports so that their
// module graph loads while the window is already opening, not before it.
startShell<Runtime>(
  {
    createRuntime: async (opts) => (await import('./runtime/runtime')).createRuntime(opts),
    startGateway: async ({ runtime, stateDir, ...rest }) => {
      const { ensureGatewayToken, startGateway, storeGatewayToken } = await import('./gateway')
      // A token set in the config wins; it is written to the state dir so the CLI finds it too.
      const configured = runtime.core.config.current.gateway.token
      if (configured) storeGatewayToken(stateDir, configured)
      return startGateway({
        host: runtime,
        stateDir,
        token: configured ?? ensureGatewayToken(stateDir),
        tokenGenerated: !configured,
        // The desktop app must start even when another program holds the port; the real port is
        // recorded in <stateDir>/gateway/gateway.json for the CLI.
        portFallback: true,
        launchedBy: 'app',
        logger: gatewayLog,
        ...rest,
      })
    },
  },
  {
    preload: join(here, '../preload/index.cjs'),
    rendererDir: join(here, '../renderer'),
    icon: join(here, '../../resources/icon.png'),
  },
)
