// Layout: sessions sidebar | conversation + composer | inspector (toggleable). Settings and the
// onboarding screen sit on top when needed. Narrow windows (styles.css) show the sidebar and the
// inspector as overlays over the conversation instead.
import { useEffect, useRef, useState } from 'react'
import { inspectorCovers } from './layout'
import { useAppStore, useController } from './app-context'
import { Composer } from './components/Composer'
import { Conversation } from './components/Conversation'
import { FileDrop } from './components/FileDrop'
import { ModelPicker } from './components/ModelPicker'
import { IconMenu, IconPanel, IconSettings } from './components/icons'
import { createBridge, PairingRequiredError } from './bridge'
import { PairingLive } from './components/PairingLive'
import { Onboarding } from './components/Onboarding'
import { ConfigIssuesBanner } from './components/ConfigIssuesBanner'
import {
  ApprovalBatchView,
  OtherApprovalsView,
  FindBarView,
  ForkOriginView,
  InspectorView,
  PairingWaitView,
  SettingsView,
  TokenChangedView,
} from './lazy-views'
import { LazyBoundary } from './lib/lazy-view'
import { Toasts } from './components/Toasts'
import { sessionState, Sidebar, STATE_LABEL } from './components/Sidebar'
import { approvalsOf, approvalsTotal, isWaiting } from './state/stores'
import { useAttentionTitle } from './window-title'
import { sessionTitle } from '../../shared/session-title'
import { formatInt } from './lib/format'
import { useTheme } from './theme'
import { ariaKeys, keyLabel, sessionStepOf, shortcutOf } from './shortcuts'
import { steppedSession, visibleSessions } from './components/session-order'

/** Where the inspector is an overlay rather than a column (keep in step with styles.css). */

interface HeaderProps {
  sessionKey?: string
  sidebarOpen: boolean
  onToggleSidebar: () => void
  toggleRef: React.Ref<HTMLButtonElement>
}

function Header({ sessionKey, sidebarOpen, onToggleSidebar, toggleRef }: HeaderProps) {
  const controller = useController()
  const row = useAppStore('sessions', (s) => s.rows.find((r) => r.key === sessionKey))
  const inspectorOpen = useAppStore('inspector', (s) => s.open)
  const approvals = useAppStore('sessions', (s) => (sessionKey ? approvalsOf(s, sessionKey) : 0))
  const waiting = useAppStore('sessions', (s) => (sessionKey ? isWaiting(s, sessionKey) : false))
  const offline = useAppStore('settings', (s) => s.connection !== 'ready')
  const state = row ? sessionState(row, approvals, waiting, offline) : 'idle'
  return (
    <header className="chat-header">
      {/* only shown where the sidebar is collapsed (styles.css) */}
      <button
        ref={toggleRef}
        type="button"
        className="btn btn-ghost btn-icon sidebar-toggle"
        aria-label="Show sessions"
        aria-expanded={sidebarOpen}
        title="Sessions"
        onClick={onToggleSidebar}
      >
        <IconMenu />
      </button>
      <div className="chat-title">
        <h1>
          <bdi>{row ? sessionTitle(row) : 'Loopdesk'}</bdi>
        </h1>
        {row && (
          <span className="muted small chat-meta">
            <ModelPicker row={row} />
            {/* never cut off: the model's name and where a fork came from give way first (a narrow window) */}
            <span className="chat-meta-state">
              {' · '}
              {row.totalTokens ? `${formatInt(row.totalTokens)} tokens · ` : ''}
              <span className={`session-state ${state}`}>{STATE_LABEL[state]}</span>
            </span>
            {row.forkSource && (
              <LazyBoundary name="where it came from">
                <ForkOriginView row={row} />
              </LazyBoundary>
            )}
          </span>
        )}
      </div>
      <div className="header-actions">
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          title={`Inspector (${keyLabel('inspector')})`}
          aria-keyshortcuts={ariaKeys('inspector')}
          aria-pressed={inspectorOpen}
          data-inspector-toggle
          onClick={() => controller.setInspectorOpen(!inspectorOpen)}
        >
          <IconPanel /> <span className="btn-label">Inspector</span>
        </button>
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          title={`Settings (${keyLabel('settings')})`}
          aria-keyshortcuts={ariaKeys('settings')}
          onClick={() => controller.openSettings()}
        >
          <IconSettings /> <span className="btn-label">Settings</span>
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
  const approvals = useAppStore('sessions', (s) => (selectedKey ? approvalsOf(s, selectedKey) : 0))
  const approvalsElsewhere = useAppStore('sessions', (s) => approvalsTotal(s) - (selectedKey ? approvalsOf(s, selectedKey) : 0))
  const connectionError = useAppStore('settings', (s) => s.connectionError)
  const needsModel = useAppStore('settings', (s) => s.modelsLoaded && !s.models.some((m) => m.configured))
  const tokenChanged = useAppStore('settings', (s) => s.connection === 'error' && !!s.tokenChanged)
  const pairingRequired = useAppStore('settings', (s) =>
    s.connection === 'error' ? s.pairingRequired : undefined,
  )
  useTheme()
  useAttentionTitle()
  // the sidebar as an overlay (narrow windows only; wider ones always show it and ignore this)
  // Remembers the session it was opened over: picking or creating another one (what it was opened
  // for) closes it.
  const [sidebarOver, setSidebarOver] = useState<{ key?: string } | null>(null)
  // the find bar (Ctrl/Cmd+F); `signal` bumps on each press so an open bar takes focus again
  const [find, setFind] = useState({ open: false, signal: 0 })
  const sidebarOpen = sidebarOver !== null && sidebarOver.key === selectedKey
  const setSidebarOpen = (open: boolean) => setSidebarOver(open ? { key: selectedKey } : null)
  const toggleRef = useRef<HTMLButtonElement>(null)
  const closeSidebar = () => {
    setSidebarOpen(false)
    toggleRef.current?.focus()
  }
  useEffect(() => {
    if (sidebarOpen) document.querySelector<HTMLElement>('.sidebar .btn')?.focus()
  }, [sidebarOpen])
  // the inspector closed with the focus in it (its Close, Escape over the drawer): the header's Inspector
  // button takes it, instead of <body>
  const wasInspectorOpen = useRef(inspectorOpen)
  useEffect(() => {
    const closed = wasInspectorOpen.current && !inspectorOpen
    wasInspectorOpen.current = inspectorOpen
    if (!closed) return
    const active = document.activeElement
    if (!active || active === document.body)
      document.querySelector<HTMLElement>('[data-inspector-toggle]')?.focus()
  }, [inspectorOpen])

  // Escape closes an overlay (the sidebar, or the inspector where it covers the conversation) unless
  // something inside (a menu, a dialog, the slash menu) already handled it.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || controller.stores.settings.getState().settingsOpen)
        return
      if (sidebarOpen) {
        setSidebarOver(null)
        toggleRef.current?.focus()
      } else if (controller.stores.inspector.getState().open && inspectorCovers()) {
        controller.setInspectorOpen(false)
      } else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [controller, sidebarOpen])

  // Keyboard (shortcuts.ts): Ctrl/Cmd+, settings; Ctrl/Cmd+Shift+I inspector; Ctrl/Cmd+Shift+O new session
  // (Ctrl/Cmd+N is the browser's own new window, which a page cannot take); Ctrl/Cmd+F find in the conversation;
  // Alt+↓ / Alt+↑ (Cmd+Option+↓ / ↑ on a Mac) the next / previous session.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const step = sessionStepOf(e)
      if (step) {
        // the next / previous session of the sidebar's list; focus stays where it is (the composer)
        e.preventDefault()
        if (document.querySelector('[aria-modal="true"]')) return
        const s = controller.stores.sessions.getState()
        const list = visibleSessions(s.rows, {
          search: s.search,
          showArchived: s.showArchived,
          contentMatches: s.contentMatches,
        })
        const key = steppedSession(list, s.selectedKey, step)
        if (key && key !== s.selectedKey) void controller.selectSession(key)
        return
      }
      const name = shortcutOf(e)
      // nothing changes behind an open dialog (a confirmation, Settings): its keyboard user cannot see it
      if (name && document.querySelector('[aria-modal="true"]')) {
        e.preventDefault()
        return
      }
      if (name === 'find') {
        // only over a conversation (not the welcome card)
        if (
          !controller.stores.sessions.getState().selectedKey ||
          controller.stores.settings.getState().settingsOpen
        )
          return
        setFind((f) => ({ open: true, signal: f.signal + 1 }))
      } else if (name === 'settings') controller.openSettings()
      else if (name === 'inspector') controller.setInspectorOpen(!controller.stores.inspector.getState().open)
      else if (name === 'newSession') {
        e.preventDefault()
        // one session per press (not one per auto-repeat), and none behind the open Settings dialog
        if (!e.repeat && !controller.stores.settings.getState().settingsOpen) void controller.createSession()
        return
      } else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [controller])

  if (tokenChanged)
    return (
      <LazyBoundary name="Sign-in">
        <TokenChangedView detail={connectionError} />
      </LazyBoundary>
    )
  // browser mode: the gateway no longer knows this browser (its pairing was removed) — wait for approval,
  // then start over with a fresh page (a reload connects as at first)
  if (pairingRequired)
    return (
      <LazyBoundary name="Pairing">
        <PairingWaitView
          initial={
            new PairingRequiredError(
              pairingRequired.message,
              pairingRequired.requestId,
              pairingRequired.deviceId,
              pairingRequired.rejectedForMs,
            )
          }
          connect={createBridge}
          onConnected={(bridge) => {
            ;(bridge as { close?: () => void }).close?.()
            location.reload()
          }}
          onRefused={(err) =>
            controller.stores.settings.setState({
              pairingRequired: undefined,
              tokenChanged: true,
              connectionError: err.message,
            })
          }
        />
      </LazyBoundary>
    )
  return (
    <div className={`app ${inspectorOpen ? 'with-inspector' : ''} ${sidebarOpen ? 'sidebar-open' : ''}`}>
      <Sidebar />
      {/* click-outside for the overlays; styles.css shows them only where they are overlays */}
      {sidebarOpen && (
        <div className="overlay-backdrop sidebar-backdrop" aria-hidden="true" onClick={closeSidebar} />
      )}
      <main className="chat">
        <Header
          sessionKey={selectedKey}
          sidebarOpen={sidebarOpen}
          onToggleSidebar={() => (sidebarOpen ? closeSidebar() : setSidebarOpen(true))}
          toggleRef={toggleRef}
        />
        <PairingLive />
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
        {/* the welcome card names the file's problems itself */}
        {!needsModel && <ConfigIssuesBanner />}
        {needsModel ? (
          <Onboarding />
        ) : selectedKey ? (
          <FileDrop sessionKey={selectedKey}>
            {find.open && (
              <LazyBoundary key={`find:${selectedKey}`} name="Find" className="find-bar">
                <FindBarView
                  sessionKey={selectedKey}
                  focusSignal={find.signal}
                  onClose={() => setFind((f) => ({ ...f, open: false }))}
                />
              </LazyBoundary>
            )}
            <Conversation key={`log:${selectedKey}`} sessionKey={selectedKey} />
            {approvalsElsewhere > 0 && (
              <LazyBoundary name="Approvals elsewhere">
                <OtherApprovalsView sessionKey={selectedKey} />
              </LazyBoundary>
            )}
            {approvals > 1 && (
              <LazyBoundary name="Approvals">
                <ApprovalBatchView sessionKey={selectedKey} />
              </LazyBoundary>
            )}
            <Composer key={`composer:${selectedKey}`} sessionKey={selectedKey} />
          </FileDrop>
        ) : (
          <div className="empty-state">
            {connection === 'connecting' ? 'Connecting…' : 'Create a session to start.'}
          </div>
        )}
      </main>
      {inspectorOpen && selectedKey && (
        <>
          <div
            className="overlay-backdrop inspector-backdrop"
            aria-hidden="true"
            onClick={() => controller.setInspectorOpen(false)}
          />
          <LazyBoundary name="Inspector" className="inspector">
            <InspectorView sessionKey={selectedKey} />
          </LazyBoundary>
        </>
      )}
      {/* Settings' load-failure notice is a modal dialog in its place: its Close (or Escape) gives the chat back */}
      {settingsOpen && (
        <LazyBoundary
          name="Settings"
          className="modal-backdrop"
          onClose={() => controller.closeSettings()}
          failureFooter={<Toasts inline />}
        >
          <SettingsView />
        </LazyBoundary>
      )}
      {/* the open Settings dialog shows them in its footer (over it they covered its buttons) */}
      {!settingsOpen && <Toasts />}
    </div>
  )
}
