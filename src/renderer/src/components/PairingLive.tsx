// Where devices' pairing requests show (components/PairingPrompt.tsx): the live wrapper stays mounted so a
// screen reader announces a request when it arrives; the cards are a chunk of their own, fetched when the first
// request or rejection is there (rare: what first paint loads stays under 500 kB, test/renderer-bundle.test.ts).
import { useAppStore } from '../app-context'
import { LazyBoundary } from '../lib/lazy-view'
import { PairingRequestsView } from '../lazy-views'

export function PairingLive() {
  const any = useAppStore('pairing', (s) => s.requests.length > 0 || s.rejected.length > 0)
  return (
    <div className="pairing-live" aria-live="polite">
      {any && (
        <LazyBoundary name="Pairing requests">
          <PairingRequestsView />
        </LazyBoundary>
      )}
    </div>
  )
}
