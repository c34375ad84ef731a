// A cache kept while it is in use: `touch()` on each use; `drop` runs once `idleMs` passed without one. Find's rendered
// text (rendered-find.ts, rendered-text.ts) is kept this way — a long-lived app would otherwise hold megabytes for a
// find made hours ago. The timer never keeps a process (the CLI, a test) alive.
export function idleDrop(idleMs: number, drop: () => void): { touch(): void; cancel(): void } {
  let lastUse = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = (ms: number) => {
    timer = setTimeout(() => {
      timer = undefined
      const idle = Date.now() - lastUse
      if (idle >= idleMs) drop()
      else arm(idleMs - idle)
    }, ms)
    ;(timer as { unref?: () => void }).unref?.()
  }
  return {
    touch() {
      lastUse = Date.now()
      if (timer === undefined) arm(idleMs)
    },
    cancel() {
      clearTimeout(timer)
      timer = undefined
    },
  }
}
