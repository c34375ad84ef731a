// Focus a keyboard user loses when the control they pressed goes away (a queued message's Remove, a toast's
// Dismiss, an approval's buttons): without this it falls to <body>, and the next Tab starts over at the top
// of the window.
import { useEffect, useRef } from 'react'

/** The window's message box, where focus goes when nothing nearer is left. */
export const messageBox = () => document.querySelector<HTMLElement>('textarea[aria-label="Message"]')

/**
 * Call the returned `arm()` from an action that may unmount the focused control. After the next render in
 * which `dep` changed, if focus fell to <body>, it moves to the first of `targets()` that is still in the
 * document. Focus the user put somewhere else is left alone.
 */
export function useRefocus(dep: unknown, targets: () => Array<HTMLElement | null | undefined>): () => void {
  // the control the action was started from, until focus is settled
  const armed = useRef<Element | null>(null)
  const targetsRef = useRef(targets)
  useEffect(() => {
    targetsRef.current = targets
  })
  useEffect(() => {
    const from = armed.current
    if (!from) return
    const active = document.activeElement
    // still on the control: the update that removes it is yet to come
    if (active === from && from !== document.body && from.isConnected) return
    armed.current = null
    // the user moved on: leave it there
    if (active && active !== document.body) return
    targetsRef.current().find((el) => el?.isConnected)?.focus()
  }, [dep])
  return () => {
    armed.current = document.activeElement
  }
}

/** what useFocusRescue watches: the stores whose changes can take the control away */
interface Subscribable {
  subscribe(listener: () => void): () => void
}

/**
 * For controls another window (or the CLI) can take away — an approval answered there: after a render in which
 * `dep` changed, if focus was inside `box` just before and fell to <body> (its control went), it moves to the
 * first of `targets()` still in the document. Nothing armed it here, so where focus was is looked at on each
 * change of `stores` — before React renders it — not followed by focus events: a window without system focus
 * (the user is in the other window, answering there) gets none.
 */
export function useFocusRescue(
  box: { readonly current: HTMLElement | null },
  dep: unknown,
  targets: () => Array<HTMLElement | null | undefined>,
  stores: { runs: Subscribable; sessions: Subscribable },
): void {
  const inside = useRef(false)
  const targetsRef = useRef(targets)
  useEffect(() => {
    targetsRef.current = targets
  })
  useEffect(() => {
    const look = () => {
      const active = document.activeElement
      inside.current = !!active && !!box.current?.contains(active)
    }
    const offs = [stores.runs.subscribe(look), stores.sessions.subscribe(look)]
    return () => {
      for (const off of offs) off()
      // unmounted with focus in it (a list shown only while enough waits): after the removal, the same rescue
      if (inside.current) setTimeout(() => focusFirstIfLost(targetsRef.current()), 0)
    }
  }, [box, stores])
  useEffect(() => {
    if (inside.current) focusFirstIfLost(targetsRef.current())
  }, [dep])
}

/** Focus on <body> (its control went): to the first of `targets` still in the document. */
function focusFirstIfLost(targets: Array<HTMLElement | null | undefined>): void {
  const active = document.activeElement
  if (active && active !== document.body) return
  targets.find((el) => el?.isConnected)?.focus()
}
