// The config-problem notice over the conversation (ConfigIssuesBanner.tsx decides when it shows).
import { useAppStore, useController } from '../app-context'
import { briefIssues, configIssuesOf, fileUnreadable } from './Onboarding'

export function ConfigIssuesNotice() {
  const controller = useController()
  const issues = useAppStore('settings', configIssuesOf)
  const path = useAppStore('settings', (s) => s.config?.path)
  const unreadable = useAppStore('settings', (s) => fileUnreadable(s.config))
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
