// Several exec approvals waiting in the open session: all of them in one place above the message box, each
// decidable on its own, and per run "Allow all N" / "Deny all" — each a real exec.approval.resolve of its own,
// a failure said on the approval it is about. A chunk of its own (lazy-views.ts): App mounts it only when
// two or more approvals wait, which first paint never needs.
// "Allow all" approves exactly the approvals its render listed (the click's closure), and only once each has been
// on screen SEEN_FOR_MS: a command arriving just before the click re-rendered the list under the pointer, and the
// click approved it unseen. A click then approves nothing and says what changed; the next one (once seen) does.
// An entry's own Approve / Deny follow the same rule for the pointer: an entry that just appeared or moved (one
// above it answered — here, in another window or by the CLI) took the place the pointer was aimed at, so a mouse
// click on it within SEEN_FOR_MS answers nothing and says so. The keyboard (click detail 0) is not held back:
// focus names the command it is on.
import { useId, useLayoutEffect, useRef, useState, type MouseEvent } from 'react'
import type { ApprovalDecision } from '../../../shared/events'
import { useAppStore, useController } from '../app-context'
import { messageBox, useFocusRescue } from '../lib/refocus'
import { oneLine } from '../../../shared/tool-display'
import { offlineReason } from '../state/offline-reason'
import type { ApprovalItem, Item } from '../state/types'
import { HiddenCharsWarning, revealHidden } from './HiddenChars'
import { IconShield } from './icons'

const NONE: Item[] = []

/** How long an approval is on screen before "Allow all" may approve it (a pointer already on its way is not a look). */
export const SEEN_FOR_MS = 600

/** When each of `ids` was first on screen (after its render was committed); forgotten once gone. Read it in handlers. */
function useFirstSeen(ids: readonly string[]): { readonly current: ReadonlyMap<string, number> } {
  const seen = useRef(new Map<string, number>())
  const sig = ids.join('\n')
  useLayoutEffect(() => {
    const now = Date.now()
    const shown = new Set(sig ? sig.split('\n') : [])
    for (const id of shown) if (!seen.current.has(id)) seen.current.set(id, now)
    for (const id of [...seen.current.keys()]) if (!shown.has(id)) seen.current.delete(id)
  }, [sig])
  return seen
}

/** The session's approvals still waiting, grouped by run in the order they were asked. */
export function pendingByRun(
  items: readonly Item[],
  waiting: Record<string, number> | undefined,
): Array<[string, ApprovalItem[]]> {
  const groups = new Map<string, ApprovalItem[]>()
  for (const it of items) {
    if (it.kind !== 'approval' || it.decision || !waiting || !(it.request.id in waiting)) continue
    const list = groups.get(it.request.runId)
    if (list) list.push(it)
    else groups.set(it.request.runId, [it])
  }
  return [...groups]
}

/** The next approval waiting here, else the one left in the conversation, else the message box. */
const nextFocus = () =>
  document.querySelector<HTMLElement>('.approval-batch button:not([disabled])') ??
  document.querySelector<HTMLElement>('.approval-card.pending button:not([disabled])') ??
  messageBox()

/** After an answer took its buttons away: focus on to the next place (`nextFocus`). */
function focusNext() {
  setTimeout(() => {
    const active = document.activeElement
    if (active && active !== document.body && active.isConnected) return // focus the user put somewhere else stays
    nextFocus()?.focus()
  }, 0)
}

export function ApprovalBatch({ sessionKey }: { sessionKey: string }) {
  const controller = useController()
  const items = useAppStore('runs', (s) => s.transcripts[sessionKey]?.items ?? NONE)
  const waiting = useAppStore('sessions', (s) => s.pendingApprovals[sessionKey])
  // approval id → what is being sent for it, or why it could not be answered
  const [busy, setBusy] = useState<Record<string, boolean>>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const headId = useId()
  // answers cannot reach the runtime while the gateway is away: every button waits for it, saying why
  const offline = useAppStore('settings', (s) => offlineReason(s.connection))
  const offlineId = useId()
  const groups = pendingByRun(items, waiting)
  const total = groups.reduce((n, [, list]) => n + list.length, 0)
  // an entry answered in another window (or the CLI), or the list gone, while focus was in it: on, not to <body>
  const section = useRef<HTMLElement>(null)
  useFocusRescue(section, groups.map(([, list]) => list.map((it) => it.request.id).join(' ')).join(' '), () => [nextFocus()], controller.stores)
  if (total < 2) return null // one alone is decided on its card in the conversation

  const decide = async (list: ApprovalItem[], decision: ApprovalDecision) => {
    const ids = list.map((it) => it.request.id)
    setBusy((b) => ({ ...b, ...Object.fromEntries(ids.map((id) => [id, true])) }))
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([id]) => !ids.includes(id))))
    // one call per approval, all sent at once: each succeeds or fails on its own
    const failed = await Promise.all(
      ids.map(async (id) => [id, await controller.resolveApproval(sessionKey, id, decision, true)] as const),
    )
    setBusy((b) => Object.fromEntries(Object.entries(b).filter(([id]) => !ids.includes(id))))
    const errs = failed.filter((f): f is readonly [string, string] => f[1] !== undefined)
    if (errs.length) setErrors((e) => ({ ...e, ...Object.fromEntries(errs) }))
    // one left waiting (the failed one) is decided on its card again, and this list goes: say it there, naming it
    const left = Object.keys(controller.stores.sessions.getState().pendingApprovals[sessionKey] ?? {}).length
    if (left < 2)
      for (const [id, e] of errs) {
        const it = list.find((x) => x.request.id === id)
        controller.toast(`Could not answer the approval for ${oneLine(it?.request.command ?? id, 80)}: ${e}`)
      }
    focusNext()
  }

  return (
    <section ref={section} className="approval-batch" aria-labelledby={headId}>
      <h2 id={headId} className="approval-head">
        <IconShield />
        {total} commands wait for approval
      </h2>
      {offline && (
        <p id={offlineId} className="approval-offline">
          {offline}
        </p>
      )}
      {groups.map(([runId, list], g) => (
        <RunGroup
          key={runId}
          label={groups.length > 1 ? `Run ${g + 1} of ${groups.length}` : 'This run'}
          first={groups.slice(0, g).reduce((n, [, l]) => n + l.length, 0)}
          list={list}
          busy={busy}
          errors={errors}
          decide={decide}
          offline={offline ? offlineId : undefined}
        />
      ))}
    </section>
  )
}

interface GroupProps {
  label: string
  /** the place in the whole list of this group's first entry */
  first: number
  list: ApprovalItem[]
  busy: Record<string, boolean>
  errors: Record<string, string>
  decide: (list: ApprovalItem[], decision: ApprovalDecision) => Promise<void>
  /** the id of the note saying why nothing can be answered now (the gateway is away); undefined while connected */
  offline?: string
}

function RunGroup({ label, first, list, busy, errors, decide, offline }: GroupProps) {
  const open = list.filter((it) => !busy[it.request.id])
  const ids = list.map((it) => it.request.id)
  const firstSeen = useFirstSeen(ids)
  // approvals "Allow all" held back (new to the list just before the click), for the list they were counted in:
  // the note goes when the list changes again
  const sig = ids.join('\n')
  const [held, setHeld] = useState<{ sig: string; count: number }>()
  const unseen = held?.sig === sig ? held.count : 0
  // an entry's own button held back for the pointer (the entry had just moved into place), for this list
  const [moved, setMoved] = useState<{ sig: string; command: string }>()
  const movedCommand = moved?.sig === sig ? moved.command : undefined
  const allowAll = () => {
    const now = Date.now()
    const fresh = open.filter((it) => now - (firstSeen.current.get(it.request.id) ?? now) < SEEN_FOR_MS)
    if (fresh.length) {
      setHeld({ sig, count: fresh.length })
      return
    }
    setHeld(undefined)
    void decide(open, 'allow-once')
  }
  return (
    <div role="group" aria-label={`${label}: ${list.length} waiting`} className="approval-batch-run">
      <ul className="approval-batch-list">
        {list.map((it, i) => (
          <BatchEntry
            key={it.key}
            item={it}
            place={first + i}
            onHeld={(command) => setMoved(command === undefined ? undefined : { sig, command })}
            busy={!!busy[it.request.id]}
            error={errors[it.request.id]}
            decide={decide}
            offline={offline}
          />
        ))}
      </ul>
      {list.length < 2 && (
        <p role="status" className="approval-batch-changed">
          {movedCommand !== undefined && movedNote(movedCommand)}
        </p>
      )}
      {list.length > 1 && (
        <>
          <div className="approval-actions">
            <button type="button" className="btn btn-primary" disabled={!open.length || !!offline} aria-describedby={offline} onClick={allowAll}>
              Allow all {open.length}
            </button>
            <button
              type="button"
              className="btn btn-danger-outline"
              disabled={!open.length || !!offline}
              aria-describedby={offline}
              onClick={() => void decide(open, 'deny')}
            >
              Deny all
            </button>
            <span className="approval-scope">{label}: each command once; nothing is allowed for later</span>
          </div>
          {/* there before its text, so a screen reader says it when a held-back click fills it */}
          <p role="status" className="approval-batch-changed">
            {unseen > 0
              ? `${unseen === 1 ? '1 command' : `${unseen} commands`} just joined this list — nothing was allowed. Review, then choose Allow all again.`
              : movedCommand !== undefined && movedNote(movedCommand)}
          </p>
        </>
      )}
    </div>
  )
}

const movedNote = (command: string) =>
  `${oneLine(command, 60)} had just moved into place — nothing was answered. Check it, then choose again.`

function BatchEntry({
  item,
  place,
  busy,
  error,
  decide,
  onHeld,
  offline,
}: {
  item: ApprovalItem
  /** its place in the whole list: when it changes, the entry moved under a pointer aimed at another */
  place: number
  busy: boolean
  error?: string
  decide: GroupProps['decide']
  /** a pointer click held back on this command (undefined: an answer went out) */
  onHeld: (command: string | undefined) => void
  offline?: string
}) {
  const id = useId()
  const { command, cwd } = item.request
  const placed = useRef<{ place: number; at: number }>(undefined)
  useLayoutEffect(() => {
    if (placed.current?.place !== place) placed.current = { place, at: Date.now() }
  }, [place])
  const answer = (e: MouseEvent, decision: ApprovalDecision) => {
    // a pointer click (detail ≥ 1) on an entry that just appeared or moved was aimed at what was there before
    if (e.detail > 0 && Date.now() - (placed.current?.at ?? 0) < SEEN_FOR_MS) return onHeld(command)
    onHeld(undefined)
    void decide([item], decision)
  }
  return (
    <li className="approval-batch-item">
      <div role="group" aria-labelledby={id}>
        {/* each bidi control / invisible character a marked token: what is approved reads as what runs */}
        <pre id={id} className="approval-command">
          {revealHidden(command)}
        </pre>
        <HiddenCharsWarning text={command} what="command" />
        <div className="approval-cwd">in {cwd}</div>
        <div className="approval-actions">
          <button
            type="button"
            className="btn btn-sm btn-primary"
            disabled={busy || !!offline}
            aria-describedby={offline}
            onClick={(e) => answer(e, 'allow-once')}
          >
            Approve
          </button>
          <button
            type="button"
            className="btn btn-sm btn-danger-outline"
            disabled={busy || !!offline}
            aria-describedby={offline}
            onClick={(e) => answer(e, 'deny')}
          >
            Deny
          </button>
        </div>

        {error && (
          <p role="alert" className="approval-batch-error">
            Could not answer this one: {error}
          </p>
        )}
      </div>
    </li>
  )
}
