// Browser mode: the gateway took this page's token but has not paired this browser (it connects from
// another machine, or through a proxy). Say so, name the request and how to approve it, and ask again every
// few seconds so the page comes in by itself once someone approved it — until the request would lapse.
// Once its request was rejected the gateway refuses it for a while without a new request: the page says so
// and stops asking; after that time it offers to ask again (one new request, on the user's click).
import { useEffect, useRef, useState } from 'react'
import type { Bridge } from '../../../shared/bridge'
import { approveCommand, PAIRING_REQUEST_TTL_MS, shortDeviceId } from '../../../shared/pairing'
import { PairingRequiredError, TokenChangedError } from '../bridge'
import { CopyButton } from './CopyButton'

/** how often the page asks again while it waits */
export const PAIRING_RETRY_MS = 4000

export interface PairingWaitProps {
  /** the refusal that brought the page here */
  initial: PairingRequiredError
  /** one connect attempt: a bridge once paired; PairingRequiredError while not */
  connect: () => Promise<Bridge>
  onConnected: (bridge: Bridge) => void
  /** the gateway refused the token itself meanwhile (rotated): nothing to wait for */
  onRefused: (err: TokenChangedError) => void
  retryMs?: number
  /** how long to keep asking (a request nobody answers lapses after this long) */
  waitMs?: number
}

type Phase = 'waiting' | 'checking' | 'expired' | 'rejected'

/** "10 min", "45 s" */
const timeLeft = (ms: number) => (ms >= 60_000 ? `${Math.ceil(ms / 60_000)} min` : `${Math.max(1, Math.ceil(ms / 1000))} s`)

export function PairingWaitScreen({ initial, connect, onConnected, onRefused, retryMs = PAIRING_RETRY_MS, waitMs = PAIRING_REQUEST_TTL_MS }: PairingWaitProps) {
  const [request, setRequest] = useState({ requestId: initial.requestId, deviceId: initial.deviceId, message: initial.message })
  const [phase, setPhase] = useState<Phase>(initial.rejectedForMs !== undefined ? 'rejected' : 'waiting')
  /** while rejected: when the gateway lets this browser ask again */
  const [rejectedUntil, setRejectedUntil] = useState(() => Date.now() + (initial.rejectedForMs ?? 0))
  const [problem, setProblem] = useState<string>()
  const [nextAt, setNextAt] = useState(() => Date.now() + retryMs)
  const [now, setNow] = useState(() => Date.now())
  const deadline = useRef(0)
  const alive = useRef(true)

  useEffect(() => {
    alive.current = true
    deadline.current = Date.now() + waitMs
    return () => void (alive.current = false)
  }, [waitMs])

  const check = async () => {
    setPhase('checking')
    try {
      const bridge = await connect()
      if (alive.current) onConnected(bridge)
      return
    } catch (err) {
      if (!alive.current) return
      if (err instanceof TokenChangedError) return onRefused(err)
      if (err instanceof PairingRequiredError) {
        setRequest({ requestId: err.requestId, deviceId: err.deviceId, message: err.message })
        setProblem(undefined)
        if (err.rejectedForMs !== undefined) {
          // rejected: asking again now would only be refused — stop until the gateway's time is up
          setRejectedUntil(Date.now() + err.rejectedForMs)
          setNow(Date.now())
          return setPhase('rejected')
        }
      } else {
        // the gateway is unreachable for now (restarting, network): keep asking
        setProblem(err instanceof Error ? err.message : String(err))
      }
    }
    if (Date.now() >= deadline.current) return setPhase('expired')
    setNextAt(Date.now() + retryMs)
    setPhase('waiting')
  }
  const checkRef = useRef(check)
  useEffect(() => {
    checkRef.current = check
  })

  // ask again when the time comes; a countdown for the status line
  useEffect(() => {
    if (phase !== 'waiting') return
    const due = setTimeout(() => void checkRef.current(), Math.max(0, nextAt - Date.now()))
    const tick = setInterval(() => setNow(Date.now()), 1000)
    return () => {
      clearTimeout(due)
      clearInterval(tick)
    }
  }, [phase, nextAt])

  // rejected: a countdown, and the end of it (then "Ask again" shows); no tries meanwhile
  useEffect(() => {
    if (phase !== 'rejected') return
    const left = rejectedUntil - Date.now()
    const done = setTimeout(() => setNow(Date.now()), Math.max(0, left))
    const tick = left > 0 ? setInterval(() => setNow(Date.now()), 1000) : undefined
    return () => {
      clearTimeout(done)
      clearInterval(tick)
    }
  }, [phase, rejectedUntil])

  const askAgain = () => {
    deadline.current = Date.now() + waitMs
    void check()
  }

  const secs = Math.max(1, Math.ceil((nextAt - now) / 1000))
  if (phase === 'rejected') {
    const left = rejectedUntil - now
    return (
      <main className="fatal pairing-wait" aria-labelledby="pairing-wait-title">
        <h1 id="pairing-wait-title">Pairing was rejected</h1>
        <p>
          The Loopdesk gateway accepted this page’s access token, but its request to pair this browser was rejected on the gateway’s
          machine. For a while the gateway refuses this browser without showing anyone a new request.
        </p>
        {request.deviceId && <p className="muted small">This browser is device {shortDeviceId(request.deviceId)}</p>}
        <p role="status">{left > 0 ? `You can ask again in ${timeLeft(left)}.` : 'You can ask again now: the gateway will show a new request.'}</p>
        {left <= 0 && (
          <p>
            <button type="button" className="btn btn-primary" onClick={askAgain}>
              Ask again
            </button>
          </p>
        )}
      </main>
    )
  }
  return (
    <main className="fatal pairing-wait" aria-labelledby="pairing-wait-title">
      <h1 id="pairing-wait-title">This browser is waiting for approval</h1>
      <p>
        The Loopdesk gateway accepted this page’s access token, but this browser is not paired with it yet: it connects from
        another machine or through a proxy, and such devices need an approval once.
      </p>
      {request.requestId ? (
        <>
          <p>
            Approve request <code>{request.requestId}</code> in the Loopdesk desktop window (it shows the request), or run this on the
            gateway’s machine:
          </p>
          <code className="pairing-command">{approveCommand(request.requestId)}</code>
          <CopyButton text={approveCommand(request.requestId)} label="Copy command" />
        </>
      ) : (
        <p>{request.message}</p>
      )}
      {request.deviceId && <p className="muted small">This browser is device {shortDeviceId(request.deviceId)}</p>}
      <p role="status">
        {phase === 'checking'
          ? 'Checking…'
          : phase === 'waiting'
            ? `Not approved yet. Checking again in ${secs} s…`
            : 'Nobody approved the request in time, so it lapsed.'}
      </p>
      {problem && <p className="muted small">Last try: {problem}</p>}
      <p>
        {phase === 'expired' ? (
          <button type="button" className="btn btn-primary" onClick={askAgain}>
            Ask again
          </button>
        ) : (
          <button type="button" className="btn" disabled={phase === 'checking'} onClick={() => void check()}>
            Check now
          </button>
        )}
      </p>
    </main>
  )
}
