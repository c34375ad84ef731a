// Messages that arrived while their session had a run going (chat.send `followup`): each one is a run
// waiting in the session lane. This keeps them observable (loopdesk.queue.list) and removable while
// still queued. Queue modes (steer / collect / interrupt) are layered on top by the queue module.
import type { QueueItem, QueueMode } from '../../../shared/events'

interface Tracked {
  item: QueueItem
  cancel: () => void
}

/** finished items kept per session so the UI sees what happened to its message */
const HISTORY_LIMIT = 50

export class FollowupQueue {
  private readonly bySession = new Map<string, Tracked[]>()
  private seq = 0

  constructor(private readonly onChange: (sessionKey: string, items: QueueItem[]) => void) {}

  add(sessionKey: string, text: string, runId: string, mode: QueueMode, cancel: () => void): QueueItem {
    const item: QueueItem = {
      id: `q_${Date.now().toString(36)}_${(this.seq++).toString(36)}`,
      sessionKey,
      mode,
      text,
      enqueuedAt: Date.now(),
      status: 'queued',
      runId,
    }
    let list = this.bySession.get(sessionKey)
    if (!list) this.bySession.set(sessionKey, (list = []))
    list.push({ item, cancel })
    this.changed(sessionKey)
    return item
  }

  /** The queued run started (or failed / was cancelled). */
  settle(sessionKey: string, id: string, status: QueueItem['status'], detail?: string): void {
    const t = this.bySession.get(sessionKey)?.find((x) => x.item.id === id)
    if (!t || t.item.status !== 'queued') return
    t.item = { ...t.item, status, ...(detail ? { detail } : {}) }
    this.trim(sessionKey)
    this.changed(sessionKey)
  }

  list(sessionKey: string): QueueItem[] {
    return (this.bySession.get(sessionKey) ?? []).map((t) => ({ ...t.item }))
  }

  /** Removes a still-queued item (its run is cancelled before it starts). */
  remove(sessionKey: string, id: string): boolean {
    const t = this.bySession.get(sessionKey)?.find((x) => x.item.id === id)
    if (!t || t.item.status !== 'queued') return false
    t.item = { ...t.item, status: 'removed' }
    t.cancel()
    this.changed(sessionKey)
    return true
  }

  /** Cancels every queued item of a session (/stop, reset, delete). Returns how many. */
  clear(sessionKey: string, status: QueueItem['status'] = 'removed'): number {
    let n = 0
    for (const t of this.bySession.get(sessionKey) ?? []) {
      if (t.item.status !== 'queued') continue
      t.item = { ...t.item, status }
      t.cancel()
      n++
    }
    if (n) this.changed(sessionKey)
    return n
  }

  queuedCount(sessionKey: string): number {
    return (this.bySession.get(sessionKey) ?? []).filter((t) => t.item.status === 'queued').length
  }

  private trim(sessionKey: string): void {
    const list = this.bySession.get(sessionKey)
    if (!list) return
    const done = list.filter((t) => t.item.status !== 'queued')
    if (done.length <= HISTORY_LIMIT) return
    const drop = new Set(done.slice(0, done.length - HISTORY_LIMIT))
    this.bySession.set(
      sessionKey,
      list.filter((t) => !drop.has(t)),
    )
  }

  private changed(sessionKey: string): void {
    try {
      this.onChange(sessionKey, this.list(sessionKey))
    } catch {
      // observers never break the queue
    }
  }
}
