// The window (tab) title says when something waits for the user, so one working in another app notices:
// exec approvals (whichever session they are in: the run waits, then is denied) and remote devices asking
// to be paired (the request lapses after a few minutes).
import { useEffect } from 'react'
import { useAppStore } from './app-context'
import { approvalsTotal } from './state/stores'

export const APP_TITLE = 'Loopdesk'

/** "(2) Approval needed — Loopdesk", "(1) Pairing request — Loopdesk", "(3) Approval needed · Pairing requests — Loopdesk" */
export function attentionTitle(approvals: number, pairingRequests: number): string {
  const parts: string[] = []
  if (approvals > 0) parts.push('Approval needed')
  if (pairingRequests > 0) parts.push(pairingRequests === 1 ? 'Pairing request' : 'Pairing requests')
  if (!parts.length) return APP_TITLE
  return `(${Math.max(0, approvals) + Math.max(0, pairingRequests)}) ${parts.join(' · ')} — ${APP_TITLE}`
}

export function useAttentionTitle() {
  const approvals = useAppStore('sessions', approvalsTotal)
  const pairing = useAppStore('pairing', (s) => s.requests.length)
  useEffect(() => {
    document.title = attentionTitle(approvals, pairing)
  }, [approvals, pairing])
  useEffect(() => () => void (document.title = APP_TITLE), [])
}
