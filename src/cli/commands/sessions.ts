// `loopdesk sessions`: the sessions a terminal user can continue with `agent --session-key`, newest first,
// named as the window names them; --search finds them by their messages too, as the sidebar does.
import path from 'node:path'
import { conversationMarkdown, wholeConversation, type MarkdownMessage } from '../../shared/conversation-markdown'
import type { ChatHistoryPage, ResultOf, SessionRow, SessionSearchMatch } from '../../shared/methods'
import { relativeTime } from '../../shared/relative-time'
import { canonicalSessionKey } from '../../shared/session-key'
import { sessionTitle } from '../../shared/session-title'
import { intFlag, parseArgs, str, TARGET_FLAGS, UsageError, type ParsedArgs } from '../args'
import { withGateway } from '../connect'
import type { GatewayConnectionClient } from '../gateway-client'
import { CliError, EXIT, type CliIO } from '../io'
import { plainLine, tableLines } from '../table'
import { pruneArchives } from './prune'
import { commandTarget } from '../resolve'

export const SESSIONS_HELP = `loopdesk sessions [--search TEXT] [--limit N] [--all] [--json] [--url ws://…] [--token T] [--state-dir D]
loopdesk sessions export KEY [--thinking] [--json]
loopdesk sessions fork KEY [--from-last-reply] [--name NAME] [--json]
loopdesk sessions prune [--older-than DAYS] [--yes]
  Lists the gateway's sessions, newest first (default 20): key, title, status (archived, read-only), last activity, tokens.
  --search matches titles, keys and the messages themselves (with the matching line and its message id —
  messageId in --json — which chat.history's messageId takes for the rows around it); --all includes
  archived sessions. Continue one with: loopdesk agent --session-key <key> -m …
  export prints a session's conversation as Markdown (tool calls one line each, --thinking adds the
  model's reasoning) or, with --json, its messages as the gateway keeps them: loopdesk sessions export KEY > chat.md
  fork starts a new session with a copy of KEY's conversation (--from-last-reply: only through its last
  completed reply) and prints the new key; it is named "<KEY's title> (fork)", "(fork 2)", … as the window's forks are,
  or --name NAME. Go on with it: loopdesk agent --session-key <new key> -m …
  prune lists the transcripts /new, /reset and deletions archived more than DAYS ago (default 30) and, with
  --yes, deletes them (never a live transcript; reads the state dir, no gateway needed). A running Loopdesk
  removes archives older than session.archiveRetentionDays (default 30; 0 keeps them) on its own.`

const FLAGS = {
  thinking: { type: 'boolean' },
  'from-last-reply': { type: 'boolean' },
  name: { type: 'string' },
  'older-than': { type: 'string' },
  yes: { type: 'boolean' },
  search: { type: 'string', alias: 's' },
  limit: { type: 'string', alias: 'n' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  ...TARGET_FLAGS,
} as const

const GATEWAY = ['url', 'token', 'state-dir']
/** the flags each form of `sessions` uses */
const SUB_FLAGS: Record<'list' | 'export' | 'fork' | 'prune', string[]> = {
  list: ['search', 'limit', 'all', 'json', ...GATEWAY],
  export: ['json', 'thinking', ...GATEWAY],
  fork: ['from-last-reply', 'name', 'json', ...GATEWAY],
  prune: ['older-than', 'yes', 'state-dir'], // the state dir only: no gateway
}

interface Listed {
  key: string
  /** what `agent --session-id` takes (changes on /new and /reset; the key stays) */
  sessionId: string
  title: string
  status: string
  updatedAt: number
  totalTokens: number
  archived: boolean
  /** the session offers the model only the tools that read */
  readOnly?: true
  /** --search: the matching message */
  match?: string
  /** --search: that message's id (chat.history's row id, `__openclaw.id`): the window's jump opens a window around it */
  messageId?: string
}


const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

function table(rows: Listed[], now: number): string {
  const status = (r: Listed) => [r.status, ...(r.archived ? ['archived'] : []), ...(r.readOnly ? ['read-only'] : [])].join(', ')
  const cols = rows.map((r) => [r.key, cut(r.title, 40), status(r), relativeTime(r.updatedAt, now), String(r.totalTokens)])
  const [head, ...lines] = tableLines(['KEY', 'TITLE', 'STATUS', 'UPDATED', 'TOKENS'], cols)
  const out = [head]
  rows.forEach((r, i) => {
    out.push(lines[i])
    if (r.match) out.push(`    ${plainLine(cut(r.match, 100))}${r.messageId ? `  [message ${plainLine(r.messageId)}]` : ''}`)
  })
  return out.join('\n') + '\n'
}

export async function sessionsCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(SESSIONS_HELP + '\n')
    return EXIT.ok
  }
  const sub = positionals[0] === 'export' || positionals[0] === 'fork' || positionals[0] === 'prune' ? positionals[0] : 'list'
  // a flag that does nothing for this command is refused, not ignored: `prune --json` printing prose
  // to a script, or `fork --thinking` not doing what it seemed to, is worse than a usage line
  const extraFlag = Object.keys(flags).find((f) => f !== 'help' && !SUB_FLAGS[sub].includes(f))
  if (extraFlag) throw new UsageError(`${sub === 'list' ? 'sessions' : `sessions ${sub}`} takes no --${extraFlag}`)
  if (sub === 'export') return exportSession(positionals.slice(1), flags, io)
  if (sub === 'fork') return forkSession(positionals.slice(1), flags, io)
  if (sub === 'prune') return pruneArchives(positionals.slice(1), flags, io)
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
      sessionId: r.sessionId,
      title: sessionTitle(r),
      // OpenClaw's `killed` is a run the user stopped: the session is idle, as the window's sidebar says it
      status: r.status === 'running' ? 'running' : r.status === 'failed' || r.status === 'timeout' ? r.status : 'idle',
      updatedAt: r.updatedAt,
      totalTokens: r.totalTokens ?? 0,
      archived: !!r.archived,
      ...(r.permissionMode === 'read-only' ? { readOnly: true as const } : {}),
      ...(m ? { match: `${m.role}: ${m.snippet}`, messageId: m.messageId } : {}),
    }
  })
  if (flags.json) io.stdout(JSON.stringify(listed) + '\n')
  else if (!listed.length) io.stdout(search ? `no sessions match "${search}"\n` : 'no sessions yet — start one with: loopdesk agent -m "hello"\n')
  else io.stdout(table(listed, Date.now()))
  return EXIT.ok
}

/** The listed row of one session (its title), or undefined when sessions.list does not have it. */
async function sessionRow(conn: GatewayConnectionClient, key: string): Promise<SessionRow | undefined> {
  const list = (await conn.request('sessions.list', { search: key, includeDerivedTitles: true, archived: 'all' })) as ResultOf<'sessions.list'>
  // a short key ("s1") is the default agent's, as the runtime reads it
  const canonical = canonicalSessionKey(key, list.defaults?.agentId) ?? key
  return list.sessions.find((r) => r.key === canonical)
}

/** `sessions export KEY`: the whole conversation, oldest first (shared/conversation-markdown.ts). */
async function exportSession(args: string[], flags: ParsedArgs['flags'], io: CliIO): Promise<number> {
  const [key, ...extra] = args
  if (!key) throw new UsageError('sessions export needs a session key (see: loopdesk sessions)')
  if (extra.length) throw new UsageError(`unexpected argument: ${extra[0]}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  const { messages, row, sessionKey, damaged, gatewayStateDir } = await withGateway({ target, stateDir, io }, async (conn) => {
    // a failed page throws here (it is a request): wholeConversation never gives up on its own
    const pages = (await wholeConversation(async (p) => (await conn.request('chat.history', { sessionKey: key, ...p })) as ChatHistoryPage)) ?? []
    const canonical = pages[0]?.sessionKey ?? key
    const damaged = pages.find((p) => p.damagedLines)
    // the page names the file relative to the gateway's state dir; hello tells an admin connection where that is
    const gatewayStateDir = typeof conn.hello.snapshot?.stateDir === 'string' ? (conn.hello.snapshot.stateDir as string) : undefined
    return { messages: pages.flatMap((p) => p.messages), row: await sessionRow(conn, canonical), sessionKey: canonical, damaged, gatewayStateDir }
  })
  if (!row && !messages.length) throw new CliError(`no session ${sessionKey} (see: loopdesk sessions)`, EXIT.failed)
  // the export is still written (what could be read), but never silently short of what the session held
  if (damaged) {
    const n = damaged.damagedLines!
    io.stderr(`loopdesk: warning: ${n} line${n === 1 ? '' : 's'} of this conversation could not be read and ${n === 1 ? 'is' : 'are'} missing from the export (file ${damagedFileShown(damaged.transcriptFile ?? '', gatewayStateDir)})\n`)
  }
  if (flags.json) {
    io.stdout(JSON.stringify({ sessionKey, messages }) + '\n')
    return EXIT.ok
  }
  io.stdout(conversationMarkdown(messages as MarkdownMessage[], { title: row ? sessionTitle(row) : sessionKey, sessionKey, now: Date.now(), includeThinking: !!flags.thinking }))
  return EXIT.ok
}

/** `sessions fork KEY`: sessions.create with fork; prints the new session's key. */
async function forkSession(args: string[], flags: ParsedArgs['flags'], io: CliIO): Promise<number> {
  const [key, ...extra] = args
  if (!key) throw new UsageError('sessions fork needs a session key (see: loopdesk sessions)')
  if (extra.length) throw new UsageError(`unexpected argument: ${extra[0]}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  const name = str(flags.name)?.trim()
  if (flags.name !== undefined && !name) throw new UsageError('sessions fork --name needs a name')
  // unnamed, the gateway names it ("<title> (fork 2)" when "(fork)" is taken): one rule for every client
  const r = await withGateway({ target, stateDir, io }, async (conn) =>
    (await conn.request('sessions.create', {
      parentSessionKey: key,
      fork: true,
      ...(flags['from-last-reply'] ? { forkFrom: 'last-completed' } : {}),
      ...(name ? { label: name } : {}),
    })) as ResultOf<'sessions.create'>,
  )
  io.stdout(flags.json ? JSON.stringify(r) + '\n' : `${r.key}\n`)
  return EXIT.ok
}

/** Where a damaged transcript is: under the gateway's state dir when hello named it, else said relative to it. */
function damagedFileShown(rel: string, stateDir: string | undefined): string {
  if (path.isAbsolute(rel)) return rel // an older gateway sent the whole path
  return stateDir ? path.join(stateDir, rel) : `${rel} in the gateway's state folder`
}
