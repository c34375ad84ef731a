// Runs a model-supplied regular expression off the main thread. JavaScript regexes backtrack, and a
// pattern such as /(a+)+$/ can take minutes on a short line: run on the main thread that would freeze
// every session, the gateway and the UI. A worker thread with a time budget per file can simply be
// terminated when the budget runs out.
import { Worker } from 'node:worker_threads'
import { ToolAbortedError } from './result'

// Plain JS (eval'd CommonJS), so it needs no bundling or TS loader in the worker.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const re = new RegExp(workerData.pattern, workerData.flags)
parentPort.on('message', ({ id, text, maxLineChars }) => {
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

/** One worker holding one compiled pattern; search() one text at a time, close() when done. */
export class RegexSearcher {
  private readonly worker: Worker
  private nextId = 0
  private pending?: { id: number; resolve: (m: LineMatches) => void; reject: (e: Error) => void }
  private dead?: Error

  constructor(
    private readonly pattern: string,
    flags: string,
    private readonly opts: { budgetMs: number; maxLineChars: number },
  ) {
    // a pattern may also allocate wildly: bound the worker's heap so it fails instead of the app
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pattern, flags }, resourceLimits: { maxOldGenerationSizeMb: 256 } })
    this.worker.unref()
    this.worker.on('message', (m: { id: number } & LineMatches) => {
      const p = this.pending
      if (!p || p.id !== m.id) return
      this.pending = undefined
      p.resolve({ hits: m.hits, cut: m.cut })
    })
    const fail = (err: Error) => {
      this.dead ??= err
      const p = this.pending
      this.pending = undefined
      p?.reject(this.dead)
    }
    this.worker.on('error', (err) => fail(new Error(`grep failed: ${err.message}`)))
    this.worker.on('exit', (code) => fail(new Error(`grep worker stopped (exit code ${code})`)))
  }

  /** Matches every line of `text`. Rejects with RegexTimeoutError past the budget, ToolAbortedError on abort. */
  search(text: string, where: string, signal?: AbortSignal): Promise<LineMatches> {
    if (this.dead) return Promise.reject(this.dead)
    if (signal?.aborted) return Promise.reject(new ToolAbortedError('grep'))
    const id = this.nextId++
    return new Promise<LineMatches>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
      const stop = (err: Error) => {
        cleanup()
        this.dead = err
        this.pending = undefined
        void this.worker.terminate()
        reject(err)
      }
      const onAbort = () => stop(new ToolAbortedError('grep'))
      const timer = setTimeout(() => stop(new RegexTimeoutError(this.pattern, this.opts.budgetMs, where)), this.opts.budgetMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pending = {
        id,
        resolve: (m) => {
          cleanup()
          resolve(m)
        },
        reject: (e) => {
          cleanup()
          reject(e)
        },
      }
      this.worker.postMessage({ id, text, maxLineChars: this.opts.maxLineChars })
    })
  }

  close(): void {
    this.dead ??= new Error('grep worker closed')
    void this.worker.terminate()
  }
}
