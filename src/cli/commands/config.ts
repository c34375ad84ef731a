// `loopdesk config`: read and change loopdesk.json through the running gateway, as the settings do —
// validated by the runtime (a bad value is refused with its path, nothing written), applied live, and
// guarded by the hash of what was read (a change made meanwhile elsewhere is not overwritten). Secrets
// are write-only: get shows them as __REDACTED__, and `set … --stdin` takes one without it landing in the
// shell's history.
import { workspaceRunner } from '../../shared/exec-runners'
import type { ResultOf } from '../../shared/methods'
import { nestingProblem } from '../../shared/nesting-limit'
import { byKey, providerUseText, sessionsUsingProvider } from '../../shared/provider-sessions'
import { isPlainObject } from '../../main/runtime/config/validate'
import { parseArgs, TARGET_FLAGS, UsageError } from '../args'
import { withGateway, writeWithRateLimitWait } from '../connect'
import { resolveConfigPath } from '../../main/runtime/config/state-dir'
import { GatewayClientError, type GatewayConnectionClient } from '../gateway-client'
import { EXIT, jsonErrorLine, readStdinText, type CliIO } from '../io'
import { commandTarget, type GatewayTarget } from '../resolve'

export const CONFIG_HELP = `loopdesk config get [PATH] [--json]      (PATH like agents.defaults.model.primary)
loopdesk config set PATH VALUE | --stdin
loopdesk config unset PATH
loopdesk config path                     (no gateway needed)
loopdesk config rename-provider OLD NEW
  Reads or changes loopdesk.json through the running gateway, validated and applied at once. VALUE is
  JSON when it parses as JSON (5, true, ["a"], {"k":1}), else a string; a list replaces the list there, an
  object is merged into what is there. Secrets (API keys, the gateway token) read as __REDACTED__; give one
  with --stdin to keep it out of your shell history. rename-provider moves a provider of your own to a new
  name in one write: its entry, its stored key, and the default model, agents and sessions using it.`

const FLAGS = { json: { type: 'boolean' }, stdin: { type: 'boolean' }, ...TARGET_FLAGS } as const

/** Dot path → keys; `[` is refused (lists are set whole: they are merged by id). */
export function pathKeys(path: string): string[] {
  if (!path || /[[\]]/.test(path)) throw new UsageError(`not a config path: ${path || '(empty)'} (use dots, e.g. agents.defaults.timeoutSeconds; set lists whole)`)
  const keys = path.split('.')
  if (keys.some((k) => !k)) throw new UsageError(`not a config path: ${path}`)
  return keys
}

/** `{a: {b: value}}` for a.b */
export function patchAt(keys: string[], value: unknown): Record<string, unknown> {
  return keys.reduceRight<unknown>((inner, k) => ({ [k]: inner }), value) as Record<string, unknown>
}

/** JSON when it is JSON, else the text itself */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const SECRET_KEY = /(apikey|token|secret|password)$/i

export async function configCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(CONFIG_HELP + '\n')
    return EXIT.ok
  }
  const [sub, path, value, ...extra] = positionals
  if (extra.length) throw new UsageError(`unexpected argument: ${extra[0]}`)
  if (sub === 'rename-provider') return renameProvider(flags, io, path, value)
  if (sub !== 'get' && sub !== 'set' && sub !== 'unset' && sub !== 'path') {
    throw new UsageError(
      sub ? `unknown config command: ${sub} (get | set | unset | path | rename-provider)` : 'config needs a command: get | set | unset | path | rename-provider',
    )
  }
  // only get prints a value: the others' lines are text, which --json promised not to be
  if (flags.json && sub !== 'get') throw new UsageError(`config ${sub} takes no --json`)
  if ((sub === 'path' && path) || ((sub === 'get' || sub === 'unset') && value !== undefined)) throw new UsageError(`unexpected argument: ${sub === 'path' ? path : value}`)
  // `config set` / `config unset` alone: what they need, not "not a config path: (empty)"
  if ((sub === 'set' || sub === 'unset') && path === undefined) throw new UsageError(`config ${sub} needs a path: config ${sub === 'set' ? 'set PATH VALUE (or --stdin)' : 'unset PATH'}, e.g. agents.defaults.timeoutSeconds`)
  const keys = sub === 'get' && path === undefined ? [] : sub === 'path' ? [] : pathKeys(path ?? '')
  let newValue: unknown
  if (sub === 'set') {
    if (flags.stdin && value !== undefined) throw new UsageError('give the value or --stdin, not both')
    if (!flags.stdin && value === undefined) throw new UsageError('config set needs a value (or --stdin)')
    const text = flags.stdin ? await readStdinText(io, '--stdin') : value!
    newValue = SECRET_KEY.test(keys.at(-1)!) ? text : parseValue(text) // a key is a string, even when it looks like a number
    // said here, before a request: sending a value nested ~100k deep ran the stack out (the gateway refuses it too)
    const deep = nestingProblem(patchAt(keys, newValue))
    if (deep) throw new UsageError(`config set: the value is ${deep}`)
    if (!flags.stdin && SECRET_KEY.test(keys.at(-1)!)) io.stderr('loopdesk: note: that secret is in your shell history now; --stdin keeps it out\n')
  }
  const { stateDir, target } = commandTarget(flags, io.env)
  if (sub === 'path') return printPath(io, stateDir, target)
  return withGateway({ target, stateDir, io }, async (conn) => {
    const current = (await conn.request('config.get', {})) as ResultOf<'config.get'>
    if (sub === 'get') return printValue(io, current, keys, path, !!flags.json)
    // nothing to unset: say so at once, without spending one of the gateway's few config writes a minute
    // (while the file has problems, config.get shows the last good config: the key may be one of them)
    if (sub === 'unset' && !current.issues.length && valueAt(current, keys) === undefined) {
      io.stderr(`loopdesk: ${path} is not set; nothing to unset\n`)
      return EXIT.failed
    }
    const value = sub === 'unset' ? null : newValue
    // providers this unset removes, and the sessions that use them (read before the write: nothing changes them)
    const removed = value === null ? removedProviders(current, keys) : []
    const rows = removed.length ? ((await conn.request('sessions.list', { limit: 100_000, archived: 'all' })) as ResultOf<'sessions.list'>).sessions : []
    const code = await writeWithRateLimitWait(
      io,
      () => write(conn, io, current, keys, path!, value),
      async () => write(conn, io, (await conn.request('config.get', {})) as ResultOf<'config.get'>, keys, path!, value),
    )
    if (code === EXIT.ok && removed.length) {
      const after = (await conn.request('models.list', {})) as ResultOf<'models.list'>
      for (const id of removed) {
        for (const line of providerUseText(sessionsUsingProvider(rows, id), id, after.defaultModel, byKey)) io.stderr(`loopdesk: warning: ${line}\n`)
      }
    }
    return code
  })
}

/** The providers of one's own an unset of this path removes (`models.providers.X`, `models.providers`, `models`). */
function removedProviders(cfg: ResultOf<'config.get'>, keys: string[]): string[] {
  const providers = (cfg.config.models as { providers?: unknown } | undefined)?.providers
  if (!isPlainObject(providers)) return []
  if (keys.length === 3 && keys[0] === 'models' && keys[1] === 'providers') return keys[2] in providers ? [keys[2]] : []
  if ((keys.length === 2 && keys[0] === 'models' && keys[1] === 'providers') || (keys.length === 1 && keys[0] === 'models')) return Object.keys(providers)
  return []
}

/** `config rename-provider OLD NEW`: loopdesk.config.renameProvider with the hash just read (the key moves inside the runtime) */
async function renameProvider(flags: { stdin?: boolean; json?: boolean } & Parameters<typeof commandTarget>[0], io: CliIO, from?: string, to?: string): Promise<number> {
  if (!from || !to) throw new UsageError('config rename-provider needs the provider and its new name: rename-provider OLD NEW')
  if (flags.stdin || flags.json) throw new UsageError(`config rename-provider takes no ${flags.stdin ? '--stdin' : '--json'}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  return withGateway({ target, stateDir, io }, async (conn) => {
    const once = async () => {
      const current = (await conn.request('config.get', {})) as ResultOf<'config.get'>
      return (await conn.request('loopdesk.config.renameProvider', { from, to, baseHash: current.hash })) as ResultOf<'loopdesk.config.renameProvider'>
    }
    const r = await writeWithRateLimitWait(io, once)
    io.stdout(`renamed provider ${from} to ${to}\n`)
    const followed = [...r.movedRefs, ...(r.movedSessions ? [`${r.movedSessions} session${r.movedSessions === 1 ? '' : 's'}`] : [])]
    if (followed.length) io.stdout(`now naming ${to}: ${followed.join(', ')}\n`)
    return EXIT.ok
  })
}

/**
 * The file the running gateway reads; with none running, the one a gateway of this state dir would read
 * (the runtime's own rule) — unless the gateway was named by --url / LOOPDESK_GATEWAY_URL, which may be
 * another machine's.
 */
async function printPath(io: CliIO, stateDir: string, target: GatewayTarget): Promise<number> {
  try {
    const current = await withGateway({ target, stateDir, io }, (conn) => conn.request('config.get', {}) as Promise<ResultOf<'config.get'>>)
    io.stdout(current.path + '\n')
  } catch (err) {
    const local = target.source === 'state' || target.source === 'stale' || target.source === 'default'
    if (!(err instanceof GatewayClientError && err.kind === 'unreachable' && local)) throw err
    io.stdout(resolveConfigPath(stateDir, io.env) + '\n')
    io.stderr('loopdesk: note: no gateway running; that is the file one started with this state dir reads\n')
  }
  return EXIT.ok
}

/** The value at a dot path (a number steps into a list: `models.providers.local.models.0.id`); a stored key reads as set. */
function valueAt(cfg: ResultOf<'config.get'>, keys: string[]): unknown {
  let v: unknown = cfg.config
  for (const k of keys) {
    if (Array.isArray(v)) v = /^\d+$/.test(k) ? v[Number(k)] : undefined
    else v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined
  }
  // a provider key kept in the credential store is not in the file, but it is set
  if (v === undefined && secretState(cfg, keys) === 'set') v = '__REDACTED__'
  return v
}

/**
 * The config as printed: a provider whose key is kept in the credential store shows `apiKey: "__REDACTED__"`,
 * as `config get …apiKey` does — else an object view (the provider, `models`, the whole config) reads as
 * "no key set".
 */
function withStoredKeys(cfg: ResultOf<'config.get'>): ResultOf<'config.get'> {
  const providers = (cfg.config.models as { providers?: unknown } | undefined)?.providers
  if (!isPlainObject(providers)) return cfg
  const marked = Object.keys(providers).filter((id) => cfg.secrets[id] === 'set' && isPlainObject(providers[id]) && !('apiKey' in providers[id]))
  if (!marked.length) return cfg
  const config = structuredClone(cfg.config) as { models: { providers: Record<string, Record<string, unknown>> } }
  for (const id of marked) config.models.providers[id].apiKey = '__REDACTED__'
  return { ...cfg, config }
}

function printValue(io: CliIO, cfg: ResultOf<'config.get'>, keys: string[], path: string | undefined, json: boolean): number {
  const v = valueAt(withStoredKeys(cfg), keys)
  // while the file has problems, `config` is the last good config (in use) and `fileConfig` what the file
  // says: a value saved since then shows up only there, so say so rather than print a value that looks lost
  const fromFile = keys.length && cfg.issues.length && cfg.fileConfig ? valueAt(withStoredKeys({ ...cfg, config: cfg.fileConfig }), keys) : v
  const differs = JSON.stringify(fromFile) !== JSON.stringify(v)
  if (v === undefined) {
    io.stderr(`loopdesk: ${path} is not set (defaults apply)\n`)
    // --json promises JSON on stdout, a failure included
    if (json) io.stdout(jsonErrorLine(`${path} is not set (defaults apply)`, EXIT.failed))
    if (differs) io.stderr(`loopdesk: the file says ${path} = ${JSON.stringify(fromFile)}, not in use until its ${cfg.issues.length} problem(s) are fixed (loopdesk config get)\n`)
    return EXIT.failed
  }
  io.stdout((typeof v === 'string' && !json ? v : JSON.stringify(v, null, json ? undefined : 2)) + '\n')
  if (!keys.length && !json && cfg.issues.length) {
    io.stderr(`loopdesk: the file has ${cfg.issues.length} problem(s); the last good config is in use:\n`)
    for (const i of cfg.issues) io.stderr(`  ${i.path || '(file)'}: ${i.message}\n`)
  } else if (differs) {
    const said = fromFile === undefined ? 'does not set it' : `says ${JSON.stringify(fromFile)}`
    io.stderr(`loopdesk: this is the value in use; the file ${said}, not in use until its ${cfg.issues.length} problem(s) are fixed (loopdesk config get)\n`)
  }
  return EXIT.ok
}

/** config.get's secrets view of a path: `gateway.auth.token` as it is, `models.providers.<id>.apiKey` by provider */
function secretState(cfg: ResultOf<'config.get'>, keys: string[]): 'set' | 'not set' | undefined {
  const provider = keys.length === 4 && keys[0] === 'models' && keys[1] === 'providers' && keys[3] === 'apiKey' ? keys[2] : undefined
  return cfg.secrets[keys.join('.')] ?? (provider ? cfg.secrets[provider] : undefined)
}

async function write(conn: GatewayConnectionClient, io: CliIO, cfg: ResultOf<'config.get'>, keys: string[], path: string, value: unknown): Promise<number> {
  // baseHash: what was just read; a change made in between (the window, another CLI) is refused, not overwritten.
  // A list is set whole (config.patch would merge it by id); an object is merged into what is there, so
  // setting one key of a section never drops its other keys.
  const params = { patch: patchAt(keys, value), baseHash: cfg.hash, ...(Array.isArray(value) ? { replacePaths: [path] } : {}) }
  const res = (await conn.request('config.patch', params)) as ResultOf<'config.patch'>
  io.stdout(value === null ? `unset ${path}\n` : `set ${path}\n`)
  // written, but problems the file had before remain: nothing of it applies until they are fixed
  if (res?.issues?.length) {
    io.stderr(`loopdesk: the file still has ${res.issues.length} problem(s); the last good config stays in use until they are fixed:\n`)
    for (const i of res.issues) io.stderr(`  ${i.path || '(file)'}: ${i.message}\n`)
  }
  // an allow-listed build/test runner runs whatever the agent writes into its scripts: say so (not refused)
  const dotted = keys.join('.')
  if (value !== null && ('tools.exec.allowlist'.startsWith(dotted) || dotted.startsWith('tools.exec.allowlist.'))) {
    const list = (res?.config as { tools?: { exec?: { allowlist?: unknown } } } | undefined)?.tools?.exec?.allowlist
    for (const e of Array.isArray(list) ? list : []) {
      const runs = typeof e === 'string' ? workspaceRunner(e) : undefined
      if (runs) io.stderr(`loopdesk: warning: "${e}" runs code the agent can write (${runs}): the agent may run anything through it without asking\n`)
    }
  }
  // a model the runtime cannot run is valid config: say so now rather than at the next run
  if (keys.includes('model') || keys.includes('models') || keys.includes('agents')) {
    const status = (await conn.request('status', {}).catch(() => undefined)) as ResultOf<'status'> | undefined
    for (const p of status?.modelProblems ?? []) io.stderr(`loopdesk: note: ${p.path}: ${p.message}\n`)
  }
  return EXIT.ok
}
