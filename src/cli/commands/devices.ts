// `loopdesk devices`: which devices (windows, CLIs, OpenClaw clients) have connected to the gateway with
// an identity and hold a device token, which remote ones wait for approval and which were rejected lately
// — `devices approve|reject <requestId>` answers one, `devices remove <id>` forgets a device (its tokens
// stop working, its connections close; a waiting request is dropped; a rejected one may ask again at once). The human form of
// device.pair.list / approve / reject / remove.
import { PAIRING_REJECTION_MS, type PairingRemoveResult, type RejectedDeviceInfo } from '../../shared/pairing'
import { relativeTime } from '../../shared/relative-time'
import { parseArgs, TARGET_FLAGS, UsageError } from '../args'
import { withGateway } from '../connect'
import { EXIT, type CliIO } from '../io'
import { commandTarget } from '../resolve'
import { plainLine, tableLines } from '../table'

export const DEVICES_HELP = `loopdesk devices [--json] [--url ws://…] [--token T] [--state-dir D]
loopdesk devices approve|reject <requestId>
loopdesk devices remove <deviceId>
  Lists the devices that connected to the gateway with an identity (client, paired, last seen, token
  roles; * = connected now), and the devices on other machines waiting to be paired. approve pairs one (it
  connects on its next try), reject refuses it: for 10 minutes its connects are refused without a new
  request, then it may ask again (the list shows these under Rejected); a request nobody answers expires
  after 5 minutes. remove forgets a device: its device tokens stop working and its connections close (a
  device on this machine is paired again when it next connects with the gateway token); for a device
  waiting for approval it drops the request (not approved; the device may ask again), for a rejected
  device it lifts the rejection, so it may ask again now.`

const FLAGS = { json: { type: 'boolean' }, ...TARGET_FLAGS } as const

interface ListedDevice {
  deviceId: string
  clientId: string
  createdAtMs: number
  lastSeenAtMs: number
  connected: boolean
  tokens: Array<{ role: string; scopes: string[] }>
}

interface PendingRequest {
  requestId: string
  deviceId: string
  clientId: string
  platform?: string
  remoteIp: string
  scopes: string[]
  ts: number
}

const SUBS = ['list', 'remove', 'approve', 'reject']

export async function devicesCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(DEVICES_HELP + '\n')
    return EXIT.ok
  }
  const [sub, id, ...extra] = positionals
  if (sub !== undefined && !SUBS.includes(sub)) throw new UsageError(`unknown devices command: ${sub} (list | approve <requestId> | reject <requestId> | remove <deviceId>)`)
  if (sub !== undefined && sub !== 'list' && !id) throw new UsageError(`devices ${sub} needs a ${sub === 'remove' ? 'deviceId' : 'requestId'} (see: loopdesk devices)`)
  if ((sub === 'list' && id) || extra.length) throw new UsageError(`unexpected argument: ${sub === 'list' ? id : extra[0]}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  if (sub === 'remove') {
    const r = await withGateway({ target, stateDir, io }, async (conn) => {
      // the list shows ids cut to 16 characters: a unique prefix names a device (paired, asking or rejected)
      const list = (await conn.request('device.pair.list', {})) as { paired: ListedDevice[]; pending: PendingRequest[]; loopdeskRejected?: RejectedDeviceInfo[] }
      const known = new Set([...list.paired, ...list.pending, ...(list.loopdeskRejected ?? [])].map((d) => d.deviceId))
      const hits = [...known].filter((deviceId) => deviceId.startsWith(id.toLowerCase()))
      if (hits.length > 1) throw new UsageError(`${id} matches ${hits.length} devices: give more of its id`)
      const wasPaired = list.paired.some((d) => d.deviceId === hits[0])
      return { wasPaired, res: (await conn.request('device.pair.remove', { deviceId: hits[0] ?? id })) as PairingRemoveResult }
    })
    const { res, wasPaired } = r
    const lines = [
      ...(wasPaired || (!res.loopdeskRejectionLifted && !res.loopdeskRequestDropped) ? [`removed ${res.deviceId}: its device tokens no longer work`] : []),
      ...(res.loopdeskRequestDropped ? [`dropped the pairing request ${res.loopdeskRequestDropped} of ${res.deviceId}: not approved (it may ask again)`] : []),
      ...(res.loopdeskRejectionLifted ? [`lifted the rejection of ${res.deviceId}: it may ask to pair again now`] : []),
    ]
    io.stdout(flags.json ? JSON.stringify(res) + '\n' : lines.join('\n') + '\n')
    return EXIT.ok
  }
  if (sub === 'approve' || sub === 'reject') {
    const r = await withGateway({ target, stateDir, io }, (conn) => conn.request(`device.pair.${sub}`, { requestId: id }) as Promise<{ requestId: string; deviceId?: string; device?: { deviceId: string } }>)
    const deviceId = r.device?.deviceId ?? r.deviceId ?? ''
    io.stdout(flags.json ? JSON.stringify(r) + '\n' : sub === 'approve' ? `approved ${deviceId}: it can connect now\n` : `rejected ${deviceId}: it is refused for ${PAIRING_REJECTION_MS / 60_000} min, then it may ask again\n`)
    return EXIT.ok
  }
  const list = (await withGateway({ target, stateDir, io }, (conn) => conn.request('device.pair.list', {}))) as {
    paired: ListedDevice[]
    pending: PendingRequest[]
    loopdeskRejected?: RejectedDeviceInfo[]
  }
  const { paired, pending } = list
  const rejected = list.loopdeskRejected ?? [] // an older gateway does not list them
  if (flags.json) {
    io.stdout(JSON.stringify({ pending, paired, loopdeskRejected: rejected }) + '\n')
    return EXIT.ok
  }
  const now = Date.now()
  const out: string[] = []
  if (pending.length) {
    const rows = pending.map((r) => [r.requestId, r.deviceId.slice(0, 16), plainLine(`${r.clientId}${r.platform ? ` (${r.platform})` : ''}`), r.remoteIp, relativeTime(r.ts, now)])
    out.push('Waiting for approval (loopdesk devices approve <requestId>):', ...tableLines(['REQUEST', 'DEVICE', 'CLIENT', 'FROM', 'ASKED'], rows), '')
  }
  if (rejected.length) {
    const rows = rejected.map((r) => [
      r.deviceId.slice(0, 16),
      plainLine(`${r.clientId ?? '—'}${r.platform ? ` (${r.platform})` : ''}`),
      r.remoteIp ?? '—',
      relativeTime(r.rejectedAtMs, now),
      `${Math.max(1, Math.ceil((r.untilMs - now) / 60_000))} min`,
    ])
    out.push(
      'Rejected (asks again in N min; loopdesk devices remove <deviceId> lets it ask now):',
      ...tableLines(['DEVICE', 'CLIENT', 'FROM', 'REJECTED', 'ASKS AGAIN IN'], rows),
      '',
    )
  }
  if (!paired.length) {
    out.push('no devices have connected with an identity yet')
  } else {
    const rows = paired.map((d) => [
      `${d.connected ? '*' : ' '} ${d.deviceId.slice(0, 16)}`,
      d.clientId,
      relativeTime(d.createdAtMs, now),
      d.connected ? 'now' : relativeTime(d.lastSeenAtMs, now),
      d.tokens.map((t) => `${t.role} (${t.scopes.map((s) => s.replace(/^operator\./, '')).join(', ') || 'no scopes'})`).join('; ') || '—',
    ])
    out.push(...tableLines(['  DEVICE', 'CLIENT', 'PAIRED', 'LAST SEEN', 'TOKENS'], rows))
  }
  io.stdout(out.join('\n') + '\n')
  return EXIT.ok
}
