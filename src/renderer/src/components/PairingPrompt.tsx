// Remote devices asking to connect to this Loopdesk's gateway (they presented the gateway token but are
// not paired): one card each, with Approve and Reject. Not modal — the window stays usable; a card goes
// when it is answered here, from the CLI (`loopdesk devices approve|reject`), or when the request lapses.
// Below them, a line per device rejected lately (refused for a while without a new request) with
// "Allow to ask again", which lifts the rejection now.
import { memo, useEffect, useId, useState } from 'react'
import type { DevicePairRequested } from '../../../shared/events'
import { shortDeviceId, type RejectedDeviceInfo } from '../../../shared/pairing'
import { useAppStore, useController } from '../app-context'
import { pairingExpiresAt, rejectedLabel } from '../state/pairing'
import { IconLock } from './icons'

/** A loopback address on a request means a proxy on the gateway's machine (a direct loopback device pairs itself). */
const viaLocalProxy = (ip: string) => ip === '::1' || /^(::ffff:)?127\./.test(ip)

function timeLeft(ms: number): string {
  if (ms <= 0) return 'expiring'
  const s = Math.ceil(ms / 1000)
  return s >= 60 ? `${Math.ceil(s / 60)} min left` : `${s} s left`
}

const PairingCard = memo(function PairingCard({ request }: { request: DevicePairRequested }) {
  const controller = useController()
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [])
  const busy = useAppStore('pairing', (s) => s.busy[request.requestId])
  const error = useAppStore('pairing', (s) => s.errors[request.requestId])
  const titleId = useId()
  const short = shortDeviceId(request.deviceId)
  const scopes = request.scopes.length ? request.scopes.join(', ') : 'none'
  return (
    <section className="pairing-card" role="group" aria-labelledby={titleId} data-request-id={request.requestId}>
      <div className="pairing-head">
        <IconLock />
        <h2 id={titleId}>
          A device asks to connect: <span className="mono">{request.clientId}</span>
        </h2>
        <span className="pairing-timer">{timeLeft(pairingExpiresAt(request) - now)}</span>
      </div>
      <dl className="pairing-facts">
        <dt>Device</dt>
        <dd className="mono" title={request.deviceId}>
          {short}
        </dd>
        <dt>From</dt>
        <dd>
          <span className="mono">{request.remoteIp}</span>
          {viaLocalProxy(request.remoteIp) && ' (through a proxy: the device’s own address is not known)'}
        </dd>
        {request.platform && (
          <>
            <dt>Platform</dt>
            <dd>{request.platform}</dd>
          </>
        )}
        <dt>Client</dt>
        <dd>
          {request.clientId} ({request.clientMode}), role {request.role}
        </dd>
        <dt>Access asked for</dt>
        <dd className="mono">{scopes}</dd>
      </dl>
      <p className="pairing-hint">Approve only a device you are connecting yourself. Request {request.requestId}</p>
      {error && (
        <p className="pairing-error" role="alert">
          Could not answer: {error}
        </p>
      )}
      <div className="approval-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={!!busy}
          aria-label={`Approve ${request.clientId} ${short}`}
          onClick={() => void controller.pairing.approve(request.requestId)}
        >
          {busy === 'approve' ? 'Approving…' : 'Approve'}
        </button>
        <button
          type="button"
          className="btn btn-danger-outline"
          disabled={!!busy}
          aria-label={`Reject ${request.clientId} ${short}`}
          onClick={() => void controller.pairing.reject(request.requestId)}
        >
          {busy === 'reject' ? 'Rejecting…' : 'Reject'}
        </button>
      </div>
    </section>
  )
})

const RejectedLine = memo(function RejectedLine({ device }: { device: RejectedDeviceInfo }) {
  const controller = useController()
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000)
    return () => clearInterval(t)
  }, [])
  const lifting = useAppStore('pairing', (s) => !!s.lifting[device.deviceId])
  const label = rejectedLabel(device)
  const mins = Math.max(1, Math.ceil((device.untilMs - now) / 60_000))
  return (
    <li className="pairing-rejected" data-device-id={device.deviceId}>
      <span>
        Recently rejected: <span className="mono" title={device.deviceId}>{label}</span>
        {device.remoteIp && <> from <span className="mono">{device.remoteIp}</span></>} — may ask again in {mins} min
      </span>
      <button type="button" className="btn btn-ghost btn-xs" disabled={lifting} aria-label={`Allow ${label} to ask again`} onClick={() => void controller.pairing.liftRejection(device.deviceId)}>
        {lifting ? 'Allowing…' : 'Allow to ask again'}
      </button>
    </li>
  )
})

/** The requests and recent rejections, inside PairingLive's live wrapper (this file is a chunk of its own). */
export function PairingRequests() {
  const requests = useAppStore('pairing', (s) => s.requests)
  const rejected = useAppStore('pairing', (s) => s.rejected)
  return (
    <>
      {requests.length > 0 && (
        <div className="pairing-prompt" role="region" aria-label="Device pairing requests">
          {requests.length > 1 && <p className="pairing-count">{requests.length} devices ask to connect</p>}
          {requests.map((r) => (
            <PairingCard key={r.requestId} request={r} />
          ))}
        </div>
      )}
      {rejected.length > 0 && (
        <ul className="pairing-rejected-list" aria-label="Recently rejected devices">
          {rejected.map((d) => (
            <RejectedLine key={d.deviceId} device={d} />
          ))}
        </ul>
      )}
    </>
  )
}
