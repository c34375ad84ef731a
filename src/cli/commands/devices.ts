// `loopdesk devices`: which devices (windows, CLIs, OpenClaw clients) have connected to the gateway with
// an identity and hold a device token — and `devices remove <id>` to forget one (its tokens stop working,
// its connections close). The human form of device.pair.list / device.pair.remove.
import { relativeTime } from '../../shared/relative-time'
import { parseArgs, TARGET_FLAGS, UsageError } from '../args'
import { withGateway } from '../connect'
import { EXIT, type CliIO } from '../io'
import { commandTarget } from '../resolve'
import { tableLines } from '../table'

export const DEVICES_HELP = `loopdesk devices [--json] [--url ws://…] [--token T] [--state-dir D]
loopdesk devices remove <deviceId>
  Lists the devices that connected to the gateway with an identity (client, paired, last seen, token
  roles; * = connected now). remove forgets one: its device tokens stop working and its connections close
  (a device on this machine is paired again when it next connects with the gateway token).`

const FLAGS = { json: { type: 'boolean' }, ...TARGET_FLAGS } as const

interface ListedDevice {
  deviceId: string
  clientId: string
  createdAtMs: number
  lastSeenAtMs: number
  connected: boolean
  tokens: Array<{ role: string; scopes: string[] }>
}

export async function devicesCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(DEVICES_HELP + '\n')
    return EXIT.ok
  }
  const [sub, id, ...extra] = positionals
  if (sub !== undefined && sub !== 'remove' && sub !== 'list') throw new UsageError(`unknown devices command: ${sub} (list | remove <deviceId>)`)
  if (sub === 'remove' && !id) throw new UsageError('devices remove needs a deviceId (see: loopdesk devices)')
  if ((sub === 'list' && id) || extra.length) throw new UsageError(`unexpected argument: ${sub === 'list' ? id : extra[0]}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  if (sub === 'remove') {
    const r = await withGateway({ target, stateDir, io }, async (conn) => {
      // the list shows ids cut to 16 characters: a unique prefix names a device
      const { paired } = (await conn.request('device.pair.list', {})) as { paired: ListedDevice[] }
      const hits = paired.filter((d) => d.deviceId.startsWith(id.toLowerCase()))
      if (hits.length > 1) throw new UsageError(`${id} matches ${hits.length} devices: give more of its id`)
      return (await conn.request('device.pair.remove', { deviceId: hits[0]?.deviceId ?? id })) as { deviceId: string }
    })
    io.stdout(flags.json ? JSON.stringify(r) + '\n' : `removed ${r.deviceId}: its device tokens no longer work\n`)
    return EXIT.ok
  }
  const { paired } = (await withGateway({ target, stateDir, io }, (conn) => conn.request('device.pair.list', {}))) as { paired: ListedDevice[] }
  if (flags.json) {
    io.stdout(JSON.stringify({ paired }) + '\n')
    return EXIT.ok
  }
  if (!paired.length) {
    io.stdout('no devices have connected with an identity yet\n')
    return EXIT.ok
  }
  const now = Date.now()
  const rows = paired.map((d) => [
    `${d.connected ? '*' : ' '} ${d.deviceId.slice(0, 16)}`,
    d.clientId,
    relativeTime(d.createdAtMs, now),
    d.connected ? 'now' : relativeTime(d.lastSeenAtMs, now),
    d.tokens.map((t) => `${t.role} (${t.scopes.map((s) => s.replace(/^operator\./, '')).join(', ') || 'no scopes'})`).join('; ') || '—',
  ])
  io.stdout(tableLines(['  DEVICE', 'CLIENT', 'PAIRED', 'LAST SEEN', 'TOKENS'], rows).join('\n') + '\n')
  return EXIT.ok
}
