// Remote devices asking to be paired with the gateway, for the window's prompt (components/PairingPrompt.tsx).
// The list comes from the bridge's pairingList and is kept current by device.pair.requested / resolved
// (and loopdesk.device.pair.rejectionLifted for the rejected devices).
// The gateway sends no event when a request lapses, and a device that asks again refreshes its request
// quietly: when a request's time is up (ts + PAIRING_REQUEST_TTL_MS) the list is read again. The devices
// refused after a rejection (loopdeskRejected) come with the list, which is read again after a rejection
// and when one's time is up; liftRejection lets one ask again now.
import type { StoreApi } from 'zustand/vanilla'
import type { Bridge } from '../../../shared/bridge'
import type { DevicePairRequested } from '../../../shared/events'
import type { ErrorShape } from '../../../shared/methods'
import {
  PAIRING_REJECTION_NOT_FOUND,
  PAIRING_REQUEST_NOT_FOUND,
  PAIRING_REQUEST_TTL_MS,
  REJECTION_LIFTED_EVENT,
  shortDeviceId,
  type PairingEvent,
  type RejectedDeviceInfo,
} from '../../../shared/pairing'
import type { PairingState } from './stores'

/** how many answered request ids are remembered (a list read while they were answered must not revive them) */
const RESOLVED_KEPT = 200

const newestFirst = (a: DevicePairRequested, b: DevicePairRequested) => b.ts - a.ts

export const pairingExpiresAt = (r: DevicePairRequested) => r.ts + PAIRING_REQUEST_TTL_MS

/** How the prompt names a device: its client, and its id's short form. */
export const deviceLabel = (r: Pick<DevicePairRequested, 'clientId' | 'deviceId'>) => `${r.clientId} (${shortDeviceId(r.deviceId)})`

/** A rejected device's name (its client may be unknown). */
export const rejectedLabel = (r: RejectedDeviceInfo) => (r.clientId ? deviceLabel({ clientId: r.clientId, deviceId: r.deviceId }) : shortDeviceId(r.deviceId))

export class PairingRequests {
  private off?: () => void
  private timer?: ReturnType<typeof setTimeout>
  /** answered here, elsewhere (resolved event) — never shown again */
  private resolved = new Set<string>()
  /** requests announced by an event, with the number of the event (a list read that started earlier lacks them) */
  private announced = new Map<string, number>()
  private events = 0
  private disposed = false

  constructor(
    private readonly bridge: Bridge,
    private readonly store: StoreApi<PairingState>,
    private readonly toast: (text: string, kind?: 'error' | 'info') => void,
  ) {}

  /** Subscribes (once) and reads the pending requests. */
  async start(): Promise<void> {
    if (!this.off) this.off = this.bridge.subscribePairing((ev) => this.onEvent(ev))
    await this.refresh()
  }

  dispose() {
    this.disposed = true
    this.off?.()
    this.off = undefined
    clearTimeout(this.timer)
  }

  /** Reads the gateway's pending requests (also after a reconnect, and when a request's time is up). */
  async refresh(): Promise<void> {
    const since = this.events
    let res
    try {
      res = await this.bridge.pairingList({})
    } catch {
      res = undefined
    }
    if (this.disposed) return
    if (!res?.ok) {
      // no gateway, or this connection may not see pairing requests: what the events said stays, minus lapsed ones
      this.set(this.store.getState().requests.filter((r) => pairingExpiresAt(r) > Date.now()))
      return
    }
    this.setRejected(res.data.loopdeskRejected ?? []) // an older gateway does not list them
    const listed = res.data.pending.filter((r) => !this.resolved.has(r.requestId))
    const ids = new Set(listed.map((r) => r.requestId))
    // announced while the list was on its way: the list may predate them
    const newer = this.store.getState().requests.filter((r) => !ids.has(r.requestId) && (this.announced.get(r.requestId) ?? 0) > since)
    this.set([...listed, ...newer])
  }

  private onEvent(ev: PairingEvent) {
    this.events++
    if (ev.event === 'device.pair.requested') {
      const r = ev.payload
      if (!r || typeof r.requestId !== 'string' || this.resolved.has(r.requestId)) return
      this.announced.set(r.requestId, this.events)
      // one request per device: a new one (another key, or after an answer) replaces its earlier one
      this.set([r, ...this.store.getState().requests.filter((x) => x.requestId !== r.requestId && x.deviceId !== r.deviceId)])
    } else if (ev.event === 'device.pair.resolved') {
      if (ev.payload && typeof ev.payload.requestId === 'string') this.forget(ev.payload.requestId)
      // the event does not say what the device was: the list names it among the rejected
      if (ev.payload?.decision === 'rejected') void this.refresh()
    } else if (ev.event === REJECTION_LIFTED_EVENT) {
      // lifted in another window or by the CLI (this window's own lift dropped the line already)
      const deviceId = ev.payload?.deviceId
      if (typeof deviceId === 'string' && this.store.getState().rejected.some((r) => r.deviceId === deviceId)) {
        this.setRejected(this.store.getState().rejected.filter((r) => r.deviceId !== deviceId))
      }
    }
  }

  async approve(requestId: string): Promise<void> {
    await this.answer(requestId, 'approve')
  }

  async reject(requestId: string): Promise<void> {
    await this.answer(requestId, 'reject')
  }

  private async answer(requestId: string, how: 'approve' | 'reject') {
    const request = this.store.getState().requests.find((r) => r.requestId === requestId)
    if (!request || this.store.getState().busy[requestId]) return
    this.store.setState((s) => ({ busy: { ...s.busy, [requestId]: how }, errors: { ...s.errors, [requestId]: undefined } }))
    let error: ErrorShape | undefined
    try {
      const res = how === 'approve' ? await this.bridge.pairingApprove({ requestId }) : await this.bridge.pairingReject({ requestId })
      if (!res.ok) error = res.error
    } catch (err) {
      error = { code: 'UNAVAILABLE', message: err instanceof Error ? err.message : String(err) }
    }
    this.store.setState((s) => ({ busy: { ...s.busy, [requestId]: undefined } }))
    if (!error) {
      this.forget(requestId)
      this.toast(how === 'approve' ? `Paired ${deviceLabel(request)}: it connects on its next try.` : `Rejected ${deviceLabel(request)}.`, 'info')
      return
    }
    if ((error.details as { code?: unknown } | undefined)?.code === PAIRING_REQUEST_NOT_FOUND) {
      // answered elsewhere (the CLI, another window) or lapsed: nothing left to answer
      this.forget(requestId)
      this.toast(`The request from ${deviceLabel(request)} was already answered or has expired.`, 'info')
      return
    }
    this.store.setState((s) => ({ errors: { ...s.errors, [requestId]: error.message } }))
  }

  /** "Allow to ask again": the gateway forgets the device's rejection, its next connect opens a request. */
  async liftRejection(deviceId: string): Promise<void> {
    const device = this.store.getState().rejected.find((r) => r.deviceId === deviceId)
    if (!device || this.store.getState().lifting[deviceId]) return
    this.store.setState((s) => ({ lifting: { ...s.lifting, [deviceId]: true } }))
    let error: ErrorShape | undefined
    try {
      const res = await this.bridge.pairingLiftRejection({ deviceId })
      if (!res.ok) error = res.error
    } catch (err) {
      error = { code: 'UNAVAILABLE', message: err instanceof Error ? err.message : String(err) }
    }
    this.store.setState((s) => ({ lifting: { ...s.lifting, [deviceId]: undefined } }))
    const gone = !error || (error.details as { code?: unknown } | undefined)?.code === PAIRING_REJECTION_NOT_FOUND
    if (!gone) {
      this.toast(`Could not lift the rejection of ${rejectedLabel(device)}: ${error!.message}`, 'error')
      return
    }
    this.setRejected(this.store.getState().rejected.filter((r) => r.deviceId !== deviceId))
    this.toast(`${rejectedLabel(device)} may ask to connect again now.`, 'info')
  }

  private setRejected(rejected: RejectedDeviceInfo[]) {
    const ids = new Set(rejected.map((r) => r.deviceId))
    this.store.setState((s) => ({ rejected, lifting: Object.fromEntries(Object.entries(s.lifting).filter(([k]) => ids.has(k))) }))
    this.scheduleExpiry(this.store.getState().requests)
  }

  private forget(requestId: string) {
    this.resolved.add(requestId)
    if (this.resolved.size > RESOLVED_KEPT) this.resolved.delete(this.resolved.values().next().value!)
    this.announced.delete(requestId)
    this.set(this.store.getState().requests.filter((r) => r.requestId !== requestId))
  }

  private set(requests: DevicePairRequested[]) {
    const sorted = [...requests].sort(newestFirst)
    const ids = new Set(sorted.map((r) => r.requestId))
    const keep = <T>(rec: Record<string, T>) => Object.fromEntries(Object.entries(rec).filter(([k]) => ids.has(k)))
    this.store.setState((s) => ({ requests: sorted, busy: keep(s.busy), errors: keep(s.errors) }))
    this.scheduleExpiry(sorted)
  }

  /**
   * At the first request's time-up, read the list again (a device that asked again has a later ts there);
   * so too when a rejection's time is up.
   */
  private scheduleExpiry(requests: DevicePairRequested[]) {
    clearTimeout(this.timer)
    this.timer = undefined
    const rejected = this.store.getState().rejected
    if ((!requests.length && !rejected.length) || this.disposed) return
    const due = Math.min(...requests.map(pairingExpiresAt), ...rejected.map((r) => r.untilMs))
    // at least a second apart: with a clock behind the gateway's, a listed request may look lapsed already
    this.timer = setTimeout(() => void this.refresh(), Math.max(1000, due - Date.now() + 50))
  }
}
