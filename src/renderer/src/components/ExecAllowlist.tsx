// Settings → Agent: `tools.exec.allowlist`, the commands exec runs without asking. An entry that starts a
// build or test runner (npm test, make, pytest…) runs whatever the agent wrote into package.json, the
// Makefile or conftest.py, so it is as good as allowing any command: a note says so, and each such entry
// carries its own warning (shared/exec-runners.ts decides which).
import { useState } from 'react'
import { workspaceRunner } from '../../../shared/exec-runners'
import { useAppStore, useController } from '../app-context'
import { useUnsaved } from './settings-unsaved'

const PATH = 'tools.exec.allowlist'

function savedList(form: Record<string, unknown> | undefined): string[] {
  const list = (form?.tools as { exec?: { allowlist?: unknown } } | undefined)?.exec?.allowlist
  return Array.isArray(list) ? list.filter((e): e is string => typeof e === 'string') : []
}

export function ExecAllowlist({ form }: { form: Record<string, unknown> | undefined }) {
  const controller = useController()
  const saved = savedList(form)
  const [entries, setEntries] = useState<string[]>(saved)
  const [draft, setDraft] = useState('')
  // a newer saved list (another window, the CLI) replaces what this form shows unless it holds edits
  const [seen, setSeen] = useState(saved.join('\n'))
  const dirty = entries.join('\n') !== seen
  if (saved.join('\n') !== seen && !dirty) {
    setSeen(saved.join('\n'))
    setEntries(saved)
  }
  useUnsaved(dirty || draft.trim() ? 'the exec allowlist' : undefined)
  const busy = useAppStore('settings', (s) => s.config === undefined)

  const add = () => {
    const e = draft.trim()
    if (!e) return
    if (!entries.includes(e)) setEntries([...entries, e])
    setDraft('')
  }
  const save = async () => {
    const next = draft.trim() && !entries.includes(draft.trim()) ? [...entries, draft.trim()] : entries
    // the whole list is what the user sees here: replace it (removals are refused otherwise)
    if (await controller.patchConfig({ tools: { exec: { allowlist: next } } }, 'Could not save the exec allowlist', [PATH])) {
      setDraft('')
      setEntries(next)
      setSeen(next.join('\n'))
    }
  }

  return (
    <fieldset className="card" aria-label="Commands that run without asking">
      <legend>Commands that run without asking</legend>
      <p className="small muted">
        The agent runs these without an approval: an exact command, or a prefix ending in <code>*</code> (<code>git status*</code>).{' '}
        <strong>A build or test runner runs the agent&apos;s own code:</strong> <code>npm test</code>, <code>make</code>, <code>pytest</code> or{' '}
        <code>cargo test</code> run whatever it writes into package.json, the Makefile or conftest.py — as good as allowing every command.
      </p>
      {entries.length === 0 ? (
        <p className="small muted">None: every command asks.</p>
      ) : (
        <ul className="allowlist" aria-label="Allowed commands">
          {entries.map((e) => {
            const runs = workspaceRunner(e)
            return (
              <li key={e}>
                <code>{e}</code>{' '}
                <button type="button" className="btn btn-sm" aria-label={`Remove ${e}`} onClick={() => setEntries(entries.filter((x) => x !== e))}>
                  Remove
                </button>
                {runs && (
                  <div className="callout callout-warn small" role="note" aria-label={`Warning for ${e}`}>
                    Runs code the agent can write ({runs}): allowing it lets the agent run anything without asking.
                  </div>
                )}
              </li>
            )
          })}
        </ul>
      )}
      <div className="row-actions">
        <input
          className="allowlist-input"
          aria-label="Command to allow"
          value={draft}
          placeholder="git status*"
          spellCheck={false}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault()
              add()
            }
          }}
        />
        <button type="button" className="btn btn-sm" aria-label="Add to the allowlist" onClick={add} disabled={!draft.trim()}>
          Add
        </button>
        <button type="button" className="btn btn-sm btn-primary" aria-label="Save the allowlist" onClick={() => void save()} disabled={busy || (!dirty && !draft.trim())}>
          Save
        </button>
      </div>
      {draft.trim() && workspaceRunner(draft) && (
        <div className="callout callout-warn small" role="note" aria-label="Warning for the command being added">
          “{draft.trim()}” runs code the agent can write ({workspaceRunner(draft)}).
        </div>
      )}
    </fieldset>
  )
}
