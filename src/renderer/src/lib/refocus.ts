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
