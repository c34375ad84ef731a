// The per-agent session store (sessions.json). Reads come from an in-memory cache that is revalidated
// with one stat, so get/list stay cheap on the hot path; writes go through the shared StoreCore
// (in-process queue + cross-process lock + atomic replace).
import fs from 'node:fs'
import { invalid } from '../../api/errors'
import { canonicalSessionKey, parseSessionKey } from '../../../shared/session-key'
import type { SessionEntry } from '../contracts'
import { archivedTranscriptFile, assertAgentId, sessionStorePath, sessionsDir, transcriptFile } from './paths'
import { coreFor, type SessionMutator, type StoreCore } from './store-core'

export interface SessionStoreOptions {
  stateDir: string
  agentId: string
  /** fsync sessions.json before each rename (default true) */
  fsync?: boolean
  /**
   * Default for update(): false = resolve once written (durable); true = resolve at once and write
   * within deferMs together with other updates (group commit; flushed on exit). Default false.
   */
  defer?: boolean
  /** group-commit window for deferred updates (default 25 ms) */
  deferMs?: number
  /** how long update() waits for another process holding the store lock (default 10 s) */
  lockTimeoutMs?: number
}

const CANONICAL_CACHE_SIZE = 4096

export class SessionStore {
  readonly agentId: string
  readonly dir: string
  readonly path: string
  private readonly core: StoreCore

  constructor(opts: SessionStoreOptions) {
    this.agentId = assertAgentId(opts.agentId)
    this.dir = sessionsDir(opts.stateDir, this.agentId)
    this.path = sessionStorePath(opts.stateDir, this.agentId)
    this.core = coreFor(this.path)
    if (opts.fsync !== undefined) this.core.fsync = opts.fsync
    if (opts.lockTimeoutMs !== undefined) this.core.lockTimeoutMs = opts.lockTimeoutMs
    if (opts.deferMs !== undefined) this.core.deferMs = opts.deferMs
    this.defer = opts.defer ?? false
  }

  private readonly defer: boolean

  /** The canonical key for this store's agent, or undefined when malformed / another agent's. */
  canonicalKey(key: string): string | undefined {
    // every get/update canonicalizes its key: the same few keys come back on every run
    const known = this.canonical.get(key)
    if (known !== undefined) return known || undefined
    const k = canonicalSessionKey(key, this.agentId)
    const ok = k && parseSessionKey(k)?.agentId === this.agentId ? k : undefined
    if (this.canonical.size >= CANONICAL_CACHE_SIZE) this.canonical.clear()
    this.canonical.set(key, ok ?? '')
    return ok
  }

  /** key as given → canonical key ('' = invalid) */
  private readonly canonical = new Map<string, string>()

  /** The cached entry (deep-frozen: copy it before changing, or change it inside update()). */
  get(key: string): SessionEntry | undefined {
    const k = this.canonicalKey(key)
    return k ? this.core.get(k) : undefined
  }

  list(): Array<[string, SessionEntry]> {
    return this.core.list()
  }

  /**
   * Changes one entry: the mutator gets a private copy of the current entry (or undefined) and returns
   * the new entry, undefined (no change) or null (delete). It must be synchronous and may run again
   * (on fresher data) if another process wrote the store before our write. A throwing mutator rejects
   * only its own update. Durable (default): resolves with the stored entry once it is on disk.
   * `{ defer: true }`: resolves at once; written within deferMs with other updates (hot paths).
   * `{ shared: true }`: the mutator gets the stored entry itself (deep-frozen) instead of a private copy, and
   * must build a new object (`{ ...cur, field }`) rather than change it; members it leaves as they were are
   * kept without copying them (hot paths).
   */
  update(key: string, mutator: SessionMutator, opts: { defer?: boolean; shared?: boolean } = {}): Promise<SessionEntry | undefined> {
    const k = this.canonicalKey(key)
    if (!k) return Promise.reject(invalid(`invalid session key for agent ${this.agentId}: ${JSON.stringify(key)}`))
    return this.core.update(k, mutator, opts.defer ?? this.defer, opts.shared === true)
  }

  delete(key: string): Promise<void> {
    return this.update(key, () => null).then(() => undefined)
  }

  /** Picks up changes another process made (get/list also do this). */
  refresh(): void {
    this.core.syncFromDisk()
  }

  /** Writes all deferred updates now; resolves when done (check `unwritten` for failures). */
  flush(): Promise<void> {
    return this.core.flush()
  }

  /** Alias of flush() (waits for queued writes). */
  whenIdle(): Promise<void> {
    return this.core.flush()
  }

  /** Updates applied in memory but not yet on disk. */
  get unwritten(): number {
    return this.core.unwritten
  }

  transcriptPath(sessionId: string): string {
    return transcriptFile(this.dir, sessionId)
  }

  /** Moves `<id>.jsonl` aside as `<id>.jsonl.<reason>.<ts>` (/new, /reset). Undefined when there was none. */
  async archiveTranscript(sessionId: string, reason: string): Promise<string | undefined> {
    const from = this.transcriptPath(sessionId)
    const to = archivedTranscriptFile(from, reason)
    try {
      fs.renameSync(from, to)
      return to
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw err
    }
  }
}
