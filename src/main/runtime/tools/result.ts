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

/** True when the first bytes look binary (a NUL byte is the reliable signal for text vs binary). */
export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, 8192)
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true
  return false
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / (1024 * 1024)).toFixed(1)} MB`
}
