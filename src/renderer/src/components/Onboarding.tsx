// The welcome card shown in place of the conversation while no model is usable (no key, no endpoint, or
// a config file with problems). Apart from Settings.tsx: it shows at first paint, and the Settings
// dialog's code loads only when the dialog opens.
import type { Results } from '../../../shared/methods'
import { useAppStore, useController } from '../app-context'
import type { SettingsState } from '../state/stores'

/** The file has problems and cannot be read as a config object (a syntax error, no access): no save can fix it. */
export function fileUnreadable(config: Results['config.get'] | undefined): boolean {
  return !!config && config.issues.length > 0 && !config.fileConfig
}

/** The first config problems, each cut short: the onboarding card names them, Settings lists them all. */
export function briefIssues(issues: ReadonlyArray<{ path: string; message: string }>, max = 2): { lines: string[]; more: number } {
  const cut = (t: string) => (t.length > 140 ? `${t.slice(0, 139)}…` : t)
  return { lines: issues.slice(0, max).map((i) => cut(`${i.path || '(file)'}: ${i.message}`)), more: Math.max(0, issues.length - max) }
}

// one instance: a selector returning a new [] each time would re-render forever
const NO_ISSUES: ReadonlyArray<{ path: string; message: string }> = []

/** The config file's problems as the window shows them (a store selector): config.get's view, else status's (an older runtime may send only that). */
export const configIssuesOf = (s: SettingsState): ReadonlyArray<{ path: string; message: string }> =>
  s.config?.issues.length ? s.config.issues : (s.status?.configIssues ?? NO_ISSUES)

export function Onboarding() {
  const controller = useController()
  const issues = useAppStore('settings', configIssuesOf)
  const path = useAppStore('settings', (s) => s.config?.path)
  const unreadable = useAppStore('settings', (s) => fileUnreadable(s.config))
  const brief = briefIssues(issues)
  return (
    <div className="onboarding">
      <div className="onboarding-card">
        <span className="brand-mark big" aria-hidden="true" />
        <h1>Welcome to Loopdesk</h1>
        {issues.length > 0 && (
          // a model set up in a broken file is not in effect: the last good config (or the defaults) is
          <div className="callout callout-error onboarding-issues" role="alert" aria-label="Config problems">
            <p>
              Your config file{path ? <> (<code>{path}</code>)</> : ''} has {issues.length === 1 ? 'a problem' : `${issues.length} problems`}, so
              the settings in it are not used:
            </p>
            <ul>
              {brief.lines.map((l) => (
                <li key={l}>{l}</li>
              ))}
              {brief.more > 0 && <li>…and {brief.more} more</li>}
            </ul>
            <p>{unreadable ? 'Fix it in the file: it cannot be read, so Settings cannot save to it.' : 'Fix it in Settings (a save that repairs it applies at once) or in the file.'}</p>
          </div>
        )}
        <p>Loopdesk runs an agent on your machine. Connect a model to start: paste an API key for a provider, or point it at a local OpenAI-compatible server such as Ollama or LM Studio.</p>
        <ol className="onboarding-steps">
          <li>Add a provider key or a local endpoint</li>
          <li>Pick a default model</li>
          <li>Start chatting — tool calls and approvals appear inline</li>
        </ol>
        <button type="button" className="btn btn-primary" onClick={() => controller.openSettings('models')}>
          {issues.length > 0 ? 'Fix in Settings' : 'Set up a model'}
        </button>
      </div>
    </div>
  )
}
