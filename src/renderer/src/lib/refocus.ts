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

/**
 * For controls another window (or the CLI) can take away — an approval answered there: after a render in which
 * `dep` changed, if focus was last inside `box` and fell to <body> (its control went), it moves to the first of
 * `targets()` still in the document. Nothing armed it here, so "was inside" is tracked: the last focus move into
 * or out of the document decides; a control removed while focused moves nothing (focus fixup fires no focusin),
 * so it still counts as inside.
 */
export function useFocusRescue(
  box: { readonly current: HTMLElement | null },
  dep: unknown,
  targets: () => Array<HTMLElement | null | undefined>,
): void {
  const inside = useRef(false)
  const targetsRef = useRef(targets)
  useEffect(() => {
    targetsRef.current = targets
  })
  useEffect(() => {
    const onIn = (e: FocusEvent) => {
      inside.current = !!box.current && e.target instanceof Node && box.current.contains(e.target)
    }
    // focus moved to nothing (a click on plain text): the user left; a focused control that was removed
    // (Chromium fires focusout for it) is no longer connected a moment later and still counts as inside
    const onOut = (e: FocusEvent) => {
      const from = e.target
      if (e.relatedTarget || !(from instanceof Node)) return
      setTimeout(() => {
        if (from.isConnected && document.activeElement !== from) inside.current = false
      }, 0)
    }
    document.addEventListener('focusin', onIn)
    document.addEventListener('focusout', onOut)
    return () => {
      document.removeEventListener('focusin', onIn)
      document.removeEventListener('focusout', onOut)
      // unmounted with focus in it (a list shown only while enough waits): after the removal, the same rescue
      if (inside.current) setTimeout(() => focusFirstIfLost(targetsRef.current()), 0)
    }
  }, [box])
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
