// Layout: sessions sidebar | conversation + composer | inspector (toggleable). Settings and the
// onboarding screen sit on top when needed.
import { useEffect } from 'react'
import { useAppStore, useController } from './app-context'
import { Composer } from './components/Composer'
import { Conversation } from './components/Conversation'
import { FileDrop } from './components/FileDrop'
import { IconPanel, IconSettings } from './components/icons'
import { Inspector } from './components/Inspector'
import { Onboarding, SettingsDialog } from './components/Settings'
import { TokenChangedScreen } from './components/TokenChanged'
import { Toasts } from './components/Toasts'
import { sessionState, Sidebar } from './components/Sidebar'
import { sessionTitle } from '../../shared/session-title'
import { formatInt } from './lib/format'
import { useTheme } from './theme'

function Header({ sessionKey }: { sessionKey?: string }) {
  const controller = useController()
  const row = useAppStore('sessions', (s) => s.rows.find((r) => r.key === sessionKey))
  const inspectorOpen = useAppStore('inspector', (s) => s.open)
  const state = row ? sessionState(row) : 'idle'
  return (
    <header className="chat-header">
      <div className="chat-title">
        <h1>{row ? sessionTitle(row) : 'Loopdesk'}</h1>
        {row && (
          <span className="muted small">
            {row.model ? `${row.model} · ` : ''}
            {row.totalTokens ? `${formatInt(row.totalTokens)} tokens · ` : ''}
            <span className={`session-state ${state}`}>{state === 'running' ? 'Running' : state === 'error' ? 'Error' : 'Idle'}</span>
          </span>
        )}
      </div>
      <div className="header-actions">
        <button type="button" className="btn btn-ghost btn-sm" aria-pressed={inspectorOpen} onClick={() => controller.setInspectorOpen(!inspectorOpen)}>
          <IconPanel /> Inspector
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => controller.openSettings()}>
          <IconSettings /> Settings
        </button>
      </div>
    </header>
  )
}

export function App() {
  const controller = useController()
  const selectedKey = useAppStore('sessions', (s) => s.selectedKey)
  const inspectorOpen = useAppStore('inspector', (s) => s.open)
  const settingsOpen = useAppStore('settings', (s) => s.settingsOpen)
  const connection = useAppStore('settings', (s) => s.connection)
  const connectionError = useAppStore('settings', (s) => s.connectionError)
  const needsModel = useAppStore('settings', (s) => s.modelsLoaded && !s.models.some((m) => m.configured))
  const tokenChanged = useAppStore('settings', (s) => s.connection === 'error' && !!s.tokenChanged)
  useTheme()

  // Keyboard: Ctrl/Cmd+, settings; Ctrl/Cmd+I inspector; Ctrl/Cmd+N new session.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return
      if (e.key === ',') controller.openSettings()
      else if (e.key.toLowerCase() === 'i' && e.shiftKey) controller.setInspectorOpen(!controller.stores.inspector.getState().open)
      else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [controller])

  if (tokenChanged) return <TokenChangedScreen detail={connectionError} />
  return (
    <div className={`app ${inspectorOpen ? 'with-inspector' : ''}`}>
      <Sidebar />
      <main className="chat">
        <Header sessionKey={selectedKey} />
        {connection === 'connecting' && connectionError && (
          <div className="callout callout-warn" role="status">
            {connectionError}
          </div>
        )}
        {connection === 'error' && (
          <div className="callout callout-error" role="alert">
            Not connected to the Loopdesk runtime: {connectionError ?? 'unknown error'}.{' '}
            <button type="button" className="btn btn-link btn-xs" onClick={() => void controller.start()}>
              Retry
            </button>
          </div>
        )}
        {needsModel ? (
          <Onboarding />
        ) : selectedKey ? (
          <FileDrop sessionKey={selectedKey}>
            <Conversation key={`log:${selectedKey}`} sessionKey={selectedKey} />
            <Composer key={`composer:${selectedKey}`} sessionKey={selectedKey} />
          </FileDrop>
        ) : (
          <div className="empty-state">{connection === 'connecting' ? 'Connecting…' : 'Create a session to start.'}</div>
        )}
      </main>
      {inspectorOpen && selectedKey && <Inspector sessionKey={selectedKey} />}
      {settingsOpen && <SettingsDialog />}
      {/* the open Settings dialog shows them in its footer (over it they covered its buttons) */}
      {!settingsOpen && <Toasts />}
    </div>
  )
}
