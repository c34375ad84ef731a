// Small helpers shared by the tool implementations.
import type { AgentToolResult } from '@earendil-works/pi-agent-core'

export type ToolResult = AgentToolResult<Record<string, unknown> | undefined>

export function textResult(text: string, details?: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text }], details }
}

/** Thrown by tools when their AbortSignal fires; pi turns it into an isError tool result. */
export class ToolAbortedError extends Error {
  constructor(what = 'tool call') {
    super(`${what} aborted`)
    this.name = 'ToolAbortedError'
  }
}

export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted) throw new ToolAbortedError(what)
}

/** Races a promise against the signal so a slow fs call cannot hold an aborted run. */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal | undefined, what?: string): Promise<T> {
  if (!signal) return p
  if (signal.aborted) return Promise.reject(new ToolAbortedError(what))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ToolAbortedError(what))
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

/**
 * True when the first 8 KiB look binary: a NUL is the reliable signal for text vs binary. Bytes (the read,
 * edit, grep and fetch tools) or text already decoded (bootstrap files: the first 8192 characters) — a NUL
 * byte decodes to a NUL character and nothing else does, so both ask the same question.
 */
export function looksBinary(data: Uint8Array | string): boolean {
  const n = Math.min(data.length, 8192)
  if (typeof data === 'string') {
    for (let i = 0; i < n; i++) if (data.charCodeAt(i) === 0) return true
  } else {
    for (let i = 0; i < n; i++) if (data[i] === 0) return true
  }
  return false
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / (1024 * 1024)).toFixed(1)} MB`
}
