// Queue outcomes ("Started as the next run", "Steered into the running reply", …) the user cleared. The
// runtime keeps the last 50 finished items per session and sends the whole list with every queue.changed
// and queue.list, so without this a cleared outcome came back with the next queued message or a reload.
// Kept in localStorage (ids only, bounded): it is window state, like drafts.

const KEY = 'loopdesk.queueDismissed'
const PER_SESSION = 200
const SESSIONS = 100

export class DismissedOutcomes {
  private bySession: Map<string, string[]>

  constructor(private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = globalThis.localStorage) {
    this.bySession = new Map(Object.entries(this.read()))
  }

  has(sessionKey: string, id: string): boolean {
    return this.bySession.get(sessionKey)?.includes(id) ?? false
  }

  add(sessionKey: string, ids: string[]): void {
    if (!ids.length) return
    const kept = (this.bySession.get(sessionKey) ?? []).filter((id) => !ids.includes(id))
    this.bySession.delete(sessionKey) // re-inserted last: the most recently used sessions are kept
    this.bySession.set(sessionKey, [...kept, ...ids].slice(-PER_SESSION))
    while (this.bySession.size > SESSIONS) this.bySession.delete(this.bySession.keys().next().value as string)
    this.write()
  }

  private read(): Record<string, string[]> {
    try {
      const raw = this.storage?.getItem(KEY)
      const v = raw ? (JSON.parse(raw) as unknown) : {}
      if (!v || typeof v !== 'object' || Array.isArray(v)) return {}
      const out: Record<string, string[]> = {}
      for (const [k, ids] of Object.entries(v)) if (Array.isArray(ids)) out[k] = ids.filter((x): x is string => typeof x === 'string')
      return out
    } catch {
      return {}
    }
  }

  private write(): void {
    try {
      this.storage?.setItem(KEY, JSON.stringify(Object.fromEntries(this.bySession)))
    } catch {
      // storage full or disabled: cleared outcomes may come back after a reload, nothing worse
    }
  }
}
