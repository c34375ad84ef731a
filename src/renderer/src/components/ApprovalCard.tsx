// Exec approval request: the command, where it runs, and Approve / Deny. Once answered it goes away when its
// tool card (just above) carries the answer ("Approved once"); without a tool card it shows the outcome.
import { memo, useEffect, useId, useRef, useState } from 'react'
import type { ApprovalDecision } from '../../../shared/events'
import { useAppStore, useController } from '../app-context'
import { messageBox, useFocusRescue, useRefocus } from '../lib/refocus'
import { offlineReason } from '../state/offline-reason'
import { groupOf, toolRows } from '../state/tool-groups'
import { toolKey, type ApprovalItem } from '../state/types'
import { HiddenCharsWarning, revealHidden } from './HiddenChars'
import { IconShield } from './icons'

const OUTCOME: Record<ApprovalDecision, string> = {
  'allow-once': 'Approved',
  'allow-always': 'Approved (always)',
  deny: 'Denied',
}

export const ApprovalCard = memo(function ApprovalCard({ item, sessionKey }: { item: ApprovalItem; sessionKey: string }) {
  const controller = useController()
  const [busy, setBusy] = useState(false)
  // the answer cannot reach the runtime while the gateway is away: the buttons wait for it, saying why
  const offline = useAppStore('settings', (s) => offlineReason(s.connection))
  const [now, setNow] = useState(() => Date.now())
  const pending = !item.decision
  useEffect(() => {
    if (!pending) return
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [pending])
  const left = Math.max(0, Math.round((item.request.expiresAt - now) / 1000))
  // the answered card keeps the focus its buttons had (they go): a screen reader reads the outcome there
  const card = useRef<HTMLDivElement>(null)
  // answered with the tool card showing the answer, the card goes: focus moves to that tool card's header
  // (or its closed group's row)
  const key = item.request.toolCallId && toolKey(item.request.toolCallId)
  const rowOf = (k: string | undefined) => [...document.querySelectorAll<HTMLElement>('.row[data-key]')].find((r) => r.dataset.key === k)
  const toolHead = () => rowOf(key)?.querySelector<HTMLElement>('.tool-head')
  // that card inside a closed group is not rendered: the group's row, where the call is, left closed as the
  // user had it (opening it would pour its calls between them and where they were reading)
  const groupHead = () => {
    const items = controller.stores.runs.getState().transcripts[sessionKey]?.items
    const expanded = controller.stores.ui.getState().expanded
    const group = key && items ? groupOf(toolRows(items, (k) => !!expanded[k]), key) : undefined
    return group ? rowOf(group)?.querySelector<HTMLElement>('.tool-group-head') : undefined
  }
  const focusTargets = () => [card.current, toolHead(), groupHead(), messageBox()]
  const refocus = useRefocus(pending, focusTargets)
  // answered in another window (or the CLI) while focus was on its buttons: the same places, not <body>
  useFocusRescue(card, pending, focusTargets, controller.stores)
  const scopeId = useId()
  const offlineId = useId()
  const describedBy = offline ? offlineId : undefined
  const decide = async (d: ApprovalDecision) => {
    refocus()
    setBusy(true)
    try {
      await controller.resolveApproval(sessionKey, item.request.id, d)
    } finally {
      setBusy(false)
    }
  }
  const outcome = item.decision
    ? item.resolvedBy === 'timeout'
      ? 'Denied (timed out)'
      : item.resolvedBy === 'abort'
        ? 'Cancelled (run stopped)'
        : OUTCOME[item.decision]
    : undefined
  if (!pending && item.onTool) return null
  return (
    <div ref={card} tabIndex={-1} role="group" aria-label="Approval required" className={`approval-card ${pending ? 'pending' : 'resolved'}`}>
      <div className="approval-head">
        <IconShield />
        <span>{pending ? 'The agent wants to run a command' : 'Command approval'}</span>
        {pending && left > 0 && <span className="approval-timer">{left}s left</span>}
      </div>
      {/* each bidi control / invisible character a marked token: what is approved reads as what runs */}
      <pre className="approval-command">{revealHidden(item.request.command)}</pre>
      <HiddenCharsWarning text={item.request.command} what="command" />
      <div className="approval-cwd">in {item.request.cwd}</div>
      {pending ? (
        <div className="approval-actions">
          <button type="button" className="btn btn-primary" disabled={busy || !!offline} aria-describedby={describedBy} onClick={() => void decide('allow-once')}>
            Approve
          </button>
          <button
            type="button"
            className="btn"
            disabled={busy || !!offline}
            aria-describedby={offline ? `${scopeId} ${offlineId}` : scopeId}
            onClick={() => void decide('allow-always')}
          >
            Always allow
          </button>
          <button type="button" className="btn btn-danger-outline" disabled={busy || !!offline} aria-describedby={describedBy} onClick={() => void decide('deny')}>
            Deny
          </button>
          {/* the runtime allows exactly this command line, in this session only (not the program in general) */}
          <span id={scopeId} className="approval-scope">
            Always allow: this exact command, in this session only
          </span>
          {offline && (
            <span id={offlineId} className="approval-offline">
              {offline}
            </span>
          )}
        </div>
      ) : (
        <div className={`approval-outcome ${item.decision === 'deny' ? 'denied' : 'approved'}`}>{outcome}</div>
      )}
    </div>
  )
})
