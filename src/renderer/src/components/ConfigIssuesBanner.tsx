// A loopdesk.json that cannot be used (a syntax error, a bad value) while a model is set up: the runtime keeps
// the last good config, but only Settings said so — a user who edited the file saw nothing change and no reason.
// The welcome card says it when no model is set up (Onboarding.tsx); this banner says it over the conversation.
import { useEffect } from 'react'
import { useAppStore, useController } from '../app-context'
import { briefIssues, fileUnreadable } from './Onboarding'

const NO_ISSUES: ReadonlyArray<{ path: string; message: string }> = []

export function ConfigIssuesBanner() {
  const controller = useController()
  // config.get's view; status reports the same problems (an older runtime may send only that)
  const issues = useAppStore('settings', (s) => (s.config?.issues.length ? s.config.issues : (s.status?.configIssues ?? NO_ISSUES)))
  const path = useAppStore('settings', (s) => s.config?.path)
  const unreadable = useAppStore('settings', (s) => fileUnreadable(s.config))
  // a file edited in an editor (broken, or fixed) is seen when the user comes back to the window
  useEffect(() => {
    const onFocus = () => void controller.refreshConfigIssues()
    window.addEventListener('focus', onFocus)
    return () => window.removeEventListener('focus', onFocus)
  }, [controller])
  if (!issues.length) return null
  const brief = briefIssues(issues, 1)
  // a problem of the whole file (a syntax error) has no path to name
  const first = brief.lines[0].replace(/^\(file\): /, '')
  return (
    <div className="callout callout-error" role="alert" aria-label="Config problems">
      Your config file{path ? <> (<code>{path}</code>)</> : ''} has {issues.length === 1 ? 'a problem' : `${issues.length} problems`} — {first}
      {brief.more > 0 ? ` (and ${brief.more} more)` : ''}. Loopdesk keeps using the last good settings until it is fixed
      {unreadable ? ' in the file' : ''}.{' '}
      <button type="button" className="btn btn-link btn-xs" onClick={() => controller.openSettings()}>
        Open Settings
      </button>
    </div>
  )
}
