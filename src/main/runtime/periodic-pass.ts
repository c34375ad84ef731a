// A background pass run once after a delay and then every `everyMs`, timed from the end of the previous one
// (never two at once), on unref'd timers so it never keeps the process alive. The media janitor and the
// archive pruner both run this way.

export interface PeriodicPass {
  /** no further pass is scheduled (one already running finishes; `stopped()` keeps it from scheduling more) */
  cancel(): void
}

export function schedulePeriodicPass(firstDelayMs: number, everyMs: number, pass: () => Promise<unknown>, stopped: () => boolean): PeriodicPass {
  let timer: NodeJS.Timeout | undefined
  const tick = (delay: number) => {
    timer = setTimeout(() => {
      void pass().finally(() => {
        if (!stopped()) tick(everyMs)
      })
    }, delay)
    timer.unref()
  }
  tick(firstDelayMs)
  return { cancel: () => clearTimeout(timer) }
}
