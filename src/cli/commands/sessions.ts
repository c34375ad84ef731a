// `loopdesk sessions`: the sessions a terminal user can continue with `agent --session-key`, newest first,
// named as the window names them; --search finds them by their messages too, as the sidebar does.
import type { ResultOf, SessionSearchMatch } from '../../shared/methods'
import { relativeTime } from '../../shared/relative-time'
import { sessionTitle } from '../../shared/session-title'
import { intFlag, parseArgs, str, TARGET_FLAGS, UsageError } from '../args'
import { withGateway } from '../connect'
import { EXIT, type CliIO } from '../io'
import { tableLines } from '../table'
import { commandTarget } from '../resolve'

export const SESSIONS_HELP = `loopdesk sessions [--search TEXT] [--limit N] [--all] [--json] [--url ws://…] [--token T] [--state-dir D]
  Lists the gateway's sessions, newest first (default 20): key, title, status, last activity, tokens.
  --search matches titles, keys and the messages themselves (with the matching line); --all includes
  archived sessions. Continue one with: loopdesk agent --session-key <key> -m …`

const FLAGS = {
  search: { type: 'string', alias: 's' },
  limit: { type: 'string', alias: 'n' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  ...TARGET_FLAGS,
} as const

interface Listed {
  key: string
  title: string
  status: string
  updatedAt: number
  totalTokens: number
  archived: boolean
  /** --search: the matching message */
  match?: string
}


const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

function table(rows: Listed[], now: number): string {
  const cols = rows.map((r) => [r.key, cut(r.title, 40), r.archived ? `${r.status}, archived` : r.status, relativeTime(r.updatedAt, now), String(r.totalTokens)])
  const [head, ...lines] = tableLines(['KEY', 'TITLE', 'STATUS', 'UPDATED', 'TOKENS'], cols)
  const out = [head]
  rows.forEach((r, i) => {
    out.push(lines[i])
    if (r.match) out.push(`    ${cut(r.match, 100)}`)
  })
  return out.join('\n') + '\n'
}

export async function sessionsCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(SESSIONS_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]} (did you mean --search?)`)
  const limit = intFlag(flags.limit, 'limit', 1, 1000) ?? 20
  const search = str(flags.search)?.trim()
  if (flags.search !== undefined && !search) throw new UsageError('--search needs some text')
  if (search && search.length > 200) throw new UsageError('--search is limited to 200 characters')
  const { stateDir, target } = commandTarget(flags, io.env)
  const matches = new Map<string, SessionSearchMatch>()
  const rows = await withGateway({ target, stateDir, io }, async (conn) => {
    const list = (await conn.request('sessions.list', {
      includeDerivedTitles: true,
      includeGlobal: true,
      includeUnknown: true,
      archived: flags.all ? 'all' : false,
      ...(search ? {} : { limit }),
    })) as ResultOf<'sessions.list'>
    if (!search) return list.sessions
    // as the sidebar: the title or key at once, then the messages themselves
    const found = (await conn.request('loopdesk.sessions.search', { query: search, limit: 200 })) as ResultOf<'loopdesk.sessions.search'>
    for (const m of found.matches) matches.set(m.key, m)
    if (found.partial) io.stderr('loopdesk: the message search ran out of time; older sessions were not searched\n')
    const q = search.toLowerCase()
    return list.sessions.filter((r) => sessionTitle(r).toLowerCase().includes(q) || r.key.toLowerCase().includes(q) || matches.has(r.key)).slice(0, limit)
  })
  const listed: Listed[] = rows.map((r) => {
    const m = matches.get(r.key)
    return {
      key: r.key,
      title: sessionTitle(r),
      // OpenClaw's `killed` is a run the user stopped
      status: r.status === 'running' ? 'running' : r.status === 'killed' ? 'stopped' : r.status === 'failed' || r.status === 'timeout' ? r.status : 'idle',
      updatedAt: r.updatedAt,
      totalTokens: r.totalTokens ?? 0,
      archived: !!r.archived,
      ...(m ? { match: `${m.role}: ${m.snippet}` } : {}),
    }
  })
  if (flags.json) io.stdout(JSON.stringify(listed) + '\n')
  else if (!listed.length) io.stdout(search ? `no sessions match "${search}"\n` : 'no sessions yet — start one with: loopdesk agent -m "hello"\n')
  else io.stdout(table(listed, Date.now()))
  return EXIT.ok
}
