// Approvals waiting in sessions other than the open one: a sidebar badge alone is easy to miss, and a run
// there stands still until someone answers. A line above the message box says how many wait, with a button per
// session that opens it with focus on its first approval. A chunk of its own (lazy-views.ts): App mounts it only
// while approvals wait elsewhere, which first paint never needs.
import { useAppStore, useController } from '../app-context'
import { sessionTitle } from '../../../shared/session-title'
import type { SessionRow } from '../../../shared/methods'
import { IconShield } from './icons'

/** shown as buttons; the rest are counted (their sidebar rows say "Needs approval" too) */
const MAX_SHOWN = 3

export interface WaitingElsewhere {
  key: string
  count: number
}

/** The sessions other than `openKey` with approvals waiting, the one asked longest ago first (earliest expiry). */
export function approvalsElsewhere(pending: Record<string, Record<string, number>>, openKey: string | undefined): WaitingElsewhere[] {
  return Object.entries(pending)
    .filter(([key, ids]) => key !== openKey && Object.keys(ids).length > 0)
    .map(([key, ids]) => ({ key, count: Object.keys(ids).length, first: Math.min(...Object.values(ids)) }))
    .sort((a, b) => a.first - b.first)
    .map(({ key, count }) => ({ key, count }))
}

/** What the notice says: "1 approval waits in another session", "3 approvals wait in other sessions". */
export function elsewhereText(total: number, sessions: number): string {
  const where = sessions === 1 ? 'another session' : 'other sessions'
  return total === 1 ? `1 approval waits in ${where}` : `${total} approvals wait in ${where}`
}

// the list of several first (it sits after the conversation, whose cards a selector list would find first)
const FIRST_APPROVAL = ['.approval-batch button:not([disabled])', '.approval-card.pending button:not([disabled])']

/**
 * Focus on the first approval of `key` once its conversation shows it (the history load may still be on its
 * way); gives up after `timeoutMs` or when another session was opened meanwhile.
 */
export function focusFirstApproval(isOpen: () => boolean, timeoutMs = 5000): void {
  const until = Date.now() + timeoutMs
  const step = () => {
    if (!isOpen()) return
    const target = FIRST_APPROVAL.map((q) => document.querySelector<HTMLElement>(q)).find((el) => el)
    if (target) {
      target.focus()
      target.scrollIntoView?.({ block: 'nearest' })
      return
    }
    if (Date.now() < until) setTimeout(step, 50)
  }
  // after the switch's own focus moves (the new message box) have run
  setTimeout(step, 0)
}

export function OtherApprovals({ sessionKey }: { sessionKey: string }) {
  const controller = useController()
  const pending = useAppStore('sessions', (s) => s.pendingApprovals)
  const rows = useAppStore('sessions', (s) => s.rows)
  const waiting = approvalsElsewhere(pending, sessionKey)
  if (!waiting.length) return null
  const total = waiting.reduce((n, w) => n + w.count, 0)
  const text = elsewhereText(total, waiting.length)
  const titleOf = (key: string) => {
    const row: SessionRow | undefined = rows.find((r) => r.key === key)
    return row ? sessionTitle(row) : key
  }
  const open = async (key: string) => {
    await controller.selectSession(key)
    focusFirstApproval(() => controller.stores.sessions.getState().selectedKey === key)
  }
  const shown = waiting.slice(0, MAX_SHOWN)
  const more = waiting.length - shown.length
  return (
    <section className="other-approvals" aria-label={text}>
      <IconShield />
      <span className="other-approvals-text">{text}</span>
      <ul className="other-approvals-list">
        {shown.map((w) => (
          <li key={w.key}>
            <button type="button" className="btn btn-xs" onClick={() => void open(w.key)}>
              Open “{titleOf(w.key)}”{waiting.length > 1 ? ` (${w.count})` : ''}
            </button>
          </li>
        ))}
      </ul>
      {more > 0 && (
        <span className="other-approvals-more">
          and {more} more {more === 1 ? 'session' : 'sessions'}
        </span>
      )}
    </section>
  )
}
