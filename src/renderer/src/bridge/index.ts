// Chooses the Bridge transport: the preload's IPC bridge in the desktop window, the FakeBridge when a
// test page asks for it, otherwise the WebSocket bridge to the gateway that served this page
// (browser mode: http://127.0.0.1:<port>/#token=…).
import type { Bridge } from '../../../shared/bridge'
import { expandAssistantPayload, expandEventList } from '../../../shared/assistant-delta'
import { isTokenChanged, pairingRequiredOf } from './connection'
import type { FakeBridge, FakeBridgeOptions } from './fake-bridge'

declare global {
  interface Window {
    /** Set by tests before the app loads (page.addInitScript) to run against the FakeBridge. */
    __LOOPDESK_FAKE__?: FakeBridgeOptions | true
    /** The FakeBridge in use (tests drive it). */
    __LOOPDESK_FAKE_BRIDGE__?: FakeBridge
  }
}

/** Reads `token` from the URL fragment and removes the fragment from the address bar. */
export function takeTokenFromLocation(loc: Location = window.location, hist: History = window.history): string | undefined {
  const hash = loc.hash.startsWith('#') ? loc.hash.slice(1) : loc.hash
  if (!hash) return undefined
  const params = new URLSearchParams(hash)
  const token = params.get('token') ?? undefined
  if (token) {
    params.delete('token')
    const rest = params.toString()
    // The token must not linger in the address bar, history or screenshots.
    hist.replaceState(hist.state, '', loc.pathname + loc.search + (rest ? `#${rest}` : ''))
  }
  return token
}

const TOKEN_KEY = 'loopdesk.gatewayToken'

export async function createBridge(): Promise<Bridge> {
  if (window.__LOOPDESK_FAKE__) {
    const opts = window.__LOOPDESK_FAKE__ === true ? {} : window.__LOOPDESK_FAKE__
    const { FakeBridge } = await import('./fake-bridge')
    const fake = new FakeBridge(opts)
    window.__LOOPDESK_FAKE_BRIDGE__ = fake
    return fake
  }
  if (window.loopdesk) return withAssistantText(window.loopdesk)
  // Browser mode. The token lives for this tab only (sessionStorage), so a reload keeps working.
  const fromUrl = takeTokenFromLocation()
  if (fromUrl) sessionStorage.setItem(TOKEN_KEY, fromUrl)
  const token = fromUrl ?? sessionStorage.getItem(TOKEN_KEY) ?? undefined
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`
  pageGatewayUrl = url
  return connectWs(url, token, !token ? 'missing' : fromUrl ? 'invalid' : 'changed')
}

let pageGatewayUrl: string | undefined

/** Browser mode: the gateway this page was served by and talks to (undefined in the desktop window). */
export function connectedGatewayUrl(): string | undefined {
  return pageGatewayUrl
}

/** The gateway token this tab uses (browser mode only). */
export function gatewayToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined
  } catch {
    return undefined
  }
}

/**
 * Why the gateway refused this page: no token at all (opened without the link's `#token=`), the link's own
 * token is wrong, or the token this tab had worked before and was rotated since.
 */
export type TokenRefusal = 'missing' | 'invalid' | 'changed'

/** Thrown by createBridge when the gateway refused this page's token and device token. */
export class TokenChangedError extends Error {
  readonly code = 'TOKEN_CHANGED'
  constructor(
    message: string,
    readonly reason: TokenRefusal = 'changed',
  ) {
    super(message)
  }
}

/**
 * Thrown by createBridge when the gateway took this page's token but has not paired this browser (a page
 * opened from another machine, or through a proxy): a request waits for approval — in the desktop window,
 * or `loopdesk devices approve <requestId>` on the gateway's machine. The page's device identity is kept
 * (IndexedDB), so the same request stands while the page asks again.
 */
export class PairingRequiredError extends Error {
  readonly code = 'PAIRING_REQUIRED'
  constructor(
    message: string,
    /** undefined when the gateway keeps no requests (then only a loopback connect pairs the browser) */
    readonly requestId: string | undefined,
    readonly deviceId: string | undefined,
    /** its request was rejected lately: refused (no request) for this long, then it may ask again */
    readonly rejectedForMs?: number,
  ) {
    super(message)
  }
}

/** What a refused first connect means for the page: a token refused, a pairing to wait for, or else as is. */
export function connectFailure(err: unknown, refusal: TokenRefusal): unknown {
  if (isTokenChanged(err as { details?: unknown })) return new TokenChangedError((err as Error).message, refusal)
  const pairing = err instanceof Error ? pairingRequiredOf(err as Error & { details?: unknown }) : undefined
  if (pairing) return new PairingRequiredError(pairing.message, pairing.requestId, pairing.deviceId, pairing.rejectedForMs)
  return err
}

async function connectWs(url: string, token: string | undefined, refusal: TokenRefusal): Promise<Bridge> {
  // Loaded lazily: the desktop window (IPC) never needs it.
  const [{ connectWsBridge }, { browserCredentialStore }] = await Promise.all([import('./ws-bridge'), import('./device-credentials')])
  try {
    // the stored device identity + token get a reloaded page in after the shared token was rotated
    return await connectWsBridge({ url, token, clientVersion: '0.1.0', credentials: browserCredentialStore() })
  } catch (err) {
    throw connectFailure(err, refusal)
  }
}

/** Remembers a token this page set itself (Settings → Generate new token), so a reload uses it. */
export function rememberGatewayToken(token: string) {
  try {
    if (sessionStorage.getItem(TOKEN_KEY) !== null) sessionStorage.setItem(TOKEN_KEY, token)
  } catch {
    // storage blocked: the device token still gets a reload in
  }
}


/**
 * The IPC transport sends assistant events compact ({delta, textLength} without the cumulative text, see
 * src/main/shell/ipc.ts); rebuild `text` here, in the page, so subscribers see standard AgentEvents and no
 * full-text copy crosses the context bridge per delta. `recentEvents` answers come in the same form.
 */
export function withAssistantText(ipc: Bridge): Bridge {
  const subscribe: Bridge['subscribe'] = (filter, listener) => {
    const texts = new Map<string, string>()
    return ipc.subscribe(filter, (ev) => {
      if (ev.event === 'agent') expandAssistantPayload(texts, ev.payload)
      listener(ev)
    })
  }
  // a plain copy (the preload's object may be frozen by contextBridge): every call as is, subscribe wrapped
  const recentEvents: Bridge['recentEvents'] = async (params) => {
    const r = await ipc.recentEvents(params)
    if (r.ok) expandEventList(r.data.events)
    return r
  }
  return { ...ipc, subscribe, recentEvents }
}
