// `loopdesk status`: is the gateway up, and what is it doing — the human form of `gateway call status`
// (version, uptime, port, runs, sessions, where keys are kept, the proxy, config problems). Exit 0 when it
// answers and its config is valid, 1 when the config has problems; no gateway is exit 3 as for every command.
import type { ResultOf } from '../../shared/methods'
import { parseArgs, TARGET_FLAGS, UsageError } from '../args'
import { withGateway } from '../connect'
import { EXIT, type CliIO } from '../io'
import { commandTarget } from '../resolve'

export const STATUS_HELP = `loopdesk status [--json] [--url ws://…] [--token T] [--state-dir D]
  Whether the gateway answers, and what it is doing: version, uptime, address, runs, sessions, where keys
  are kept, the proxy model requests use, and config problems (exit 1 when there are any); warns when
  loopdesk.json holds a key or token and other users can read it.`

const FLAGS = { json: { type: 'boolean' }, ...TARGET_FLAGS } as const

function uptime(ms: number): string {
  const s = Math.floor(ms / 1000)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.floor(m / 60)
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} days`
}

export async function statusCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(STATUS_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  const s = await withGateway({ target, stateDir, io }, async (conn) => (await conn.request('status', {})) as ResultOf<'status'>)
  if (flags.json) {
    io.stdout(JSON.stringify(s) + '\n')
  } else {
    const queued = Object.values(s.lanes).reduce((n, l) => n + l.queued, 0)
    const lines = [
      `loopdesk ${s.version} — up ${uptime(s.uptimeMs)}`,
      `gateway    ${s.gateway?.url ?? target.url}${s.gateway?.fellBack ? ' (the configured port was taken)' : ''}${s.gateway?.bind && s.gateway.bind !== 'loopback' ? ` (bound: ${s.gateway.bind})` : ''}`,
      `state dir  ${s.stateDir}`,
      `runs       ${s.activeRuns} running${queued ? `, ${queued} queued` : ''}; ${s.sessions.count} session${s.sessions.count === 1 ? '' : 's'}`,
      `keys       ${s.credentials ? (s.credentials.store === 'system' ? "the system's secure store" : s.credentials.path) : 'kept by the runtime'}`,
      `network    ${s.proxy ? proxyLine(s.proxy) : 'direct (no proxy set)'}`,
    ]
    if (s.configIssues.length) {
      lines.push(`config     ${s.configIssues.length} problem${s.configIssues.length === 1 ? '' : 's'} (the last good config is in use):`)
      for (const i of s.configIssues) lines.push(`  ${i.path || '(file)'}: ${i.message}`)
    } else {
      lines.push('config     valid')
    }
    const exposed = s.configFileExposed
    if (exposed) {
      lines.push(
        `warning    ${exposed.path} holds secrets (${exposed.secrets.join(', ')}) and other users can read it (mode ${exposed.mode}): run chmod 600 ${exposed.path}`,
      )
    }
    const models = s.modelProblems ?? []
    if (models.length) {
      lines.push(`models     ${models.length} configured model${models.length === 1 ? '' : 's'} cannot be used (runs that need ${models.length === 1 ? 'it' : 'them'} fail):`)
      for (const i of models) lines.push(`  ${i.path}: ${i.message}`)
    }
    io.stdout(lines.join('\n') + '\n')
  }
  return s.configIssues.length || s.modelProblems?.length ? EXIT.failed : EXIT.ok
}

function proxyLine(p: NonNullable<ResultOf<'status'>['proxy']>): string {
  const via = (u?: string, v?: string) => (u ? `via ${u}${v ? ` (${v})` : ''}` : 'direct')
  const how = p.https === p.http ? via(p.https, p.source.https) : `https ${via(p.https, p.source.https)}, http ${via(p.http, p.source.http)}`
  return `${how}; direct for loopback${p.noProxy ? ` and ${p.noProxy}` : ''}`
}
