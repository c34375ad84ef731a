// What a screen reader hears of a run: its state changes (Running, Thinking, Waiting for approval, Done,
// Stopped, Error…), once each, from a live region outside the conversation log. The visible footer ticks
// its seconds and the reply streams: announced as they change, that was a word every half second.
// It stays reachable behind an open dialog (`data-stays-reachable`, lib/inert-outside.ts): inert, it left
// the accessibility tree with the conversation, and a run that ended while Settings was open went unsaid.
import { useState } from 'react'
import { useAppStore } from '../app-context'
import { approvalsOf } from '../state/stores'
import type { RunItem } from '../state/types'
import { stoppedText } from '../state/stopped-text'
import { laneWaitText } from '../../../shared/lane-wait-text'

/** The sentence for the run's state; no durations or counts, so it changes only when the state does. */
export function runAnnouncement(item: RunItem | undefined, approvals: number, offline = false): string {
  if (!item) return ''
  const live = item.status === 'pending' || item.status === 'running' || item.status === 'compacting'
  if (live && offline) return 'Connection lost, waiting for the gateway'
  if (live && item.stopping) return 'Stopping'
  if (live && approvals > 0) return 'Waiting for approval: the agent wants to run a command'
  if (live && item.retry) return item.retry.status === 429 ? 'Rate limited by the model server, retrying' : 'The model server failed, retrying'
  if (item.status === 'compacting') return 'Compacting the conversation'
  if (live && item.thinkingSince !== undefined) return 'Thinking'
  // the lane-wait sentence names counts; they change only as other runs start or end, not every second
  if (item.status === 'pending' && item.waiting) return laneWaitText(item.waiting)
  if (live) return 'Running'
  if (item.status === 'done') {
    if (item.notice === 'length') return 'Done: cut off at the model’s output limit'
    if (item.notice === 'empty') return 'Done: the model sent an empty reply'
    if (item.notice === 'silent') return 'Done: no reply'
    return 'Done'
  }
  if (item.status === 'stopped') return stoppedText(item)
  if (item.interrupted) return item.error ?? 'Interrupted'
  return `Error: ${item.error ?? 'the run failed'}`
}

const lastRun = (items: readonly { kind: string }[] | undefined): RunItem | undefined => {
  for (let i = (items?.length ?? 0) - 1; i >= 0; i--) if (items![i].kind === 'run') return items![i] as RunItem
  return undefined
}

export function RunAnnouncer({ sessionKey }: { sessionKey: string }) {
  const approvals = useAppStore('sessions', (s) => approvalsOf(s, sessionKey))
  const offline = useAppStore('settings', (s) => s.connection !== 'ready')
  const text = useAppStore('runs', (s) => runAnnouncement(lastRun(s.transcripts[sessionKey]?.items), approvals, offline))
  const loaded = useAppStore('runs', (s) => !!s.transcripts[sessionKey]?.loaded)
  // what the session said once its history was loaded is old news (a session opened on a finished run):
  // only a change after that is spoken
  const [opened, setOpened] = useState<string | undefined>(loaded ? text : undefined)
  const [changed, setChanged] = useState(false)
  if (opened === undefined && loaded) setOpened(text)
  if (!changed && opened !== undefined && text !== opened) setChanged(true)
  return (
    <div className="sr-only run-announcer" role="status" aria-live="polite" aria-atomic="true" data-stays-reachable>
      {changed ? text : ''}
    </div>
  )
}
