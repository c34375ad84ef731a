// Runs a model-supplied regular expression off the main thread. JavaScript regexes backtrack, and a
// pattern such as /(a+)+$/ can take minutes on a short line: run on the main thread that would freeze
// every session, the gateway and the UI. A worker thread with a time budget per file can simply be
// terminated when the budget runs out.
//
// One worker serves every grep call of the process: starting one costs ~50–80 ms, more than most whole
// searches. It starts on the first search, takes one file at a time (FIFO across calls, so a file's budget
// starts when the worker starts on it, not while it waits its turn), keeps the last compiled patterns, and
// is unref'd while idle so it never keeps the process alive. A search that overruns its budget (or is
// aborted) terminates it; the next search starts a fresh one. After a few idle minutes it is stopped too.
import { Worker } from 'node:worker_threads'
import { ToolAbortedError } from './result'

// Plain JS (eval'd CommonJS), so it needs no bundling or TS loader in the worker.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const compiled = new Map() // flags + '/' + pattern -> RegExp, most recent last
function regexOf(pattern, flags) {
  const key = flags + '/' + pattern
  let re = compiled.get(key)
  if (re) compiled.delete(key)
  else re = new RegExp(pattern, flags)
  compiled.set(key, re)
  if (compiled.size > 16) compiled.delete(compiled.keys().next().value)
  return re
}
parentPort.on('message', ({ id, pattern, flags, text, maxLineChars }) => {
  let re
  try {
    re = regexOf(pattern, flags)
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) })
    return
  }
  const lines = text.split('\\n')
  const hits = []
  let cut = 0
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]
    if (line.endsWith('\\r')) line = line.slice(0, -1)
    if (line.length > maxLineChars) {
      line = line.slice(0, maxLineChars)
      cut++
    }
    re.lastIndex = 0
    if (re.test(line)) hits.push(i)
  }
  parentPort.postMessage({ id, hits, cut })
})
`

/** an idle worker is stopped after this long (a later grep starts a new one) */
export const REGEX_WORKER_IDLE_MS = 3 * 60_000

export class RegexTimeoutError extends Error {
  constructor(
    readonly pattern: string,
    readonly budgetMs: number,
    readonly where: string,
  ) {
    super(
      `grep stopped: the regular expression /${pattern}/ ran longer than ${budgetMs} ms on ${where}. ` +
        'It probably backtracks catastrophically (nested quantifiers such as (a+)+ or (.*)*); simplify the pattern or search a narrower path.',
    )
    this.name = 'RegexTimeoutError'
  }
}

export interface LineMatches {
  /** 0-based indexes of matching lines */
  hits: number[]
  /** lines longer than maxLineChars (only their start was searched) */
  cut: number
}

interface Job {
  id: number
  pattern: string
  flags: string
  text: string
  maxLineChars: number
  budgetMs: number
  where: string
  signal?: AbortSignal
  resolve(m: LineMatches): void
  reject(e: Error): void
  /** set while the worker runs it */
  timer?: ReturnType<typeof setTimeout>
  onAbort?: () => void
}

/** The process's one regex worker and its queue of file searches. */
class SharedRegexWorker {
  private worker?: Worker
  private running?: Job
  private readonly queue: Job[] = []
  private nextId = 0
  private idleTimer?: ReturnType<typeof setTimeout>
  /** workers started so far (tests: reuse means this does not grow) */
  spawned = 0

  constructor(private readonly idleMs: number) {}

  search(job: Omit<Job, 'id' | 'resolve' | 'reject'>): Promise<LineMatches> {
    if (job.signal?.aborted) return Promise.reject(new ToolAbortedError('grep'))
    return new Promise<LineMatches>((resolve, reject) => {
      const j: Job = { ...job, id: this.nextId++, resolve, reject }
      if (j.signal) {
        // aborted while queued: leave the queue; while running: the worker is stopped (see start)
        j.onAbort = () => this.abort(j)
        j.signal.addEventListener('abort', j.onAbort, { once: true })
      }
      this.queue.push(j)
      this.pump()
    })
  }

  /** true while a worker thread exists (running or idle) */
  get alive(): boolean {
    return this.worker !== undefined
  }

  /** Stops the worker now (shutdown, tests); queued searches fail. */
  close(): void {
    const err = new Error('grep worker closed')
    for (const j of this.queue.splice(0)) this.settle(j, err)
    if (this.running) this.settle(this.running, err)
    this.running = undefined
    this.stopWorker()
  }

  private pump(): void {
    if (this.running || this.queue.length === 0) return
    const job = this.queue.shift()!
    this.running = job
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    const w = this.ensureWorker()
    w.ref() // a search in progress keeps the process alive
    job.timer = setTimeout(() => this.stopRunning(new RegexTimeoutError(job.pattern, job.budgetMs, job.where)), job.budgetMs)
    w.postMessage({ id: job.id, pattern: job.pattern, flags: job.flags, text: job.text, maxLineChars: job.maxLineChars })
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker
    // a pattern may also allocate wildly: bound the worker's heap so it fails instead of the app.
    // execArgv []: the source is CommonJS whatever the process was started with (--input-type=module, loaders)
    const w = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: 256 } })
    this.spawned++
    this.worker = w
    w.unref()
    w.on('message', (m: { id: number; error?: string } & LineMatches) => {
      const job = this.running
      if (w !== this.worker || !job || job.id !== m.id) return
      this.running = undefined
      if (m.error !== undefined) this.settle(job, new Error(`Invalid regular expression: ${m.error}`))
      else this.settle(job, undefined, { hits: m.hits, cut: m.cut })
      this.idle()
    })
    // events of a worker we already replaced are ignored: its job was settled when it was stopped
    const died = (err: Error) => {
      if (w !== this.worker) return
      this.worker = undefined
      const job = this.running
      this.running = undefined
      if (job) this.settle(job, err)
      this.pump()
    }
    w.on('error', (err) => died(new Error(`grep failed: ${err.message}`)))
    w.on('exit', (code) => died(new Error(`grep worker stopped (exit code ${code})`)))
    return w
  }

  /** Nothing running: next job, or unref and arm the idle stop. */
  private idle(): void {
    this.pump()
    if (this.running || !this.worker) return
    this.worker.unref()
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined
      if (!this.running) this.stopWorker()
    }, this.idleMs)
    this.idleTimer.unref()
  }

  private abort(job: Job): void {
    const at = this.queue.indexOf(job)
    if (at >= 0) {
      this.queue.splice(at, 1)
      this.settle(job, new ToolAbortedError('grep'))
    } else if (this.running === job) this.stopRunning(new ToolAbortedError('grep'))
  }

  /** The running search can only be cut off by terminating the thread; the next search gets a new one. */
  private stopRunning(err: Error): void {
    const job = this.running
    this.running = undefined
    if (job) this.settle(job, err)
    this.stopWorker()
    this.pump()
  }

  private stopWorker(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    const w = this.worker
    this.worker = undefined
    if (w) void w.terminate()
  }

  private settle(job: Job, err: Error | undefined, m?: LineMatches): void {
    if (job.timer) clearTimeout(job.timer)
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort)
    job.text = '' // the text may be megabytes: do not keep it past the search
    if (err) job.reject(err)
    else job.resolve(m!)
  }
}

let shared: SharedRegexWorker | undefined

/** The process's shared regex worker (created on first use; its thread starts with the first search). */
export function sharedRegexWorker(): SharedRegexWorker {
  return (shared ??= new SharedRegexWorker(REGEX_WORKER_IDLE_MS))
}

/** A fresh shared worker with its own idle time (tests). */
export function resetSharedRegexWorker(idleMs = REGEX_WORKER_IDLE_MS): SharedRegexWorker {
  shared?.close()
  return (shared = new SharedRegexWorker(idleMs))
}

/**
 * One grep call's searches with one pattern: search() one text at a time. After a budget overrun or an
 * abort the searcher refuses further searches (the call ends); the shared worker lives on (replaced).
 */
export class RegexSearcher {
  private dead?: Error

  constructor(
    private readonly pattern: string,
    private readonly flags: string,
    private readonly opts: { budgetMs: number; maxLineChars: number },
  ) {}

  /** Matches every line of `text`. Rejects with RegexTimeoutError past the budget, ToolAbortedError on abort. */
  async search(text: string, where: string, signal?: AbortSignal): Promise<LineMatches> {
    if (this.dead) throw this.dead
    try {
      return await sharedRegexWorker().search({
        pattern: this.pattern,
        flags: this.flags,
        text,
        maxLineChars: this.opts.maxLineChars,
        budgetMs: this.opts.budgetMs,
        where,
        signal,
      })
    } catch (err) {
      if (err instanceof RegexTimeoutError || err instanceof ToolAbortedError) this.dead = err
      throw err
    }
  }

  /** Ends this call's use of the worker (the shared thread stays for the next call). */
  close(): void {
    this.dead ??= new Error('grep searcher closed')
  }
}
