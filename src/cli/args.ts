// A small, strict argv parser: declared flags only (unknown flags are usage errors), `--x v` or `--x=v`.
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** `multiple`: a string flag that may be given more than once (every value in `lists`) */
export type FlagSpec = Record<string, { type: 'string' | 'boolean'; alias?: string; multiple?: boolean }>

/** The flags of every command that talks to a running gateway: where it is, its token, the state dir, help. */
export const TARGET_FLAGS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'state-dir': { type: 'string' },
  help: { type: 'boolean', alias: 'h' },
} as const satisfies FlagSpec

export interface ParsedArgs {
  positionals: string[]
  flags: Record<string, string | boolean | undefined>
  /** every value of each `multiple` flag, in order */
  lists: Record<string, string[]>
}

export function parseArgs(argv: string[], spec: FlagSpec): ParsedArgs {
  const byAlias = new Map<string, string>()
  for (const [name, s] of Object.entries(spec)) if (s.alias) byAlias.set(s.alias, name)
  const flags: ParsedArgs['flags'] = {}
  const lists: ParsedArgs['lists'] = {}
  const positionals: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    let name: string | undefined
    let inline: string | undefined
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      inline = eq === -1 ? undefined : arg.slice(eq + 1)
    } else if (/^-[A-Za-z]$/.test(arg)) {
      name = byAlias.get(arg.slice(1))
      if (!name) throw new UsageError(`unknown option ${arg}`)
    } else {
      positionals.push(arg)
      continue
    }
    const s = spec[name]
    if (!s) throw new UsageError(`unknown option --${name}`)
    if (s.type === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') throw new UsageError(`--${name} takes no value`)
      flags[name] = inline === undefined ? true : inline === 'true'
      continue
    }
    const value = inline ?? argv[++i]
    if (value === undefined) throw new UsageError(`--${name} needs a value`)
    // `--session-key ""` (an unset shell variable): a usage error here, not a schema message from the gateway
    if (value.trim() === '') throw new UsageError(`--${name} needs a value (it was empty)`)
    flags[name] = value
    if (s.multiple) (lists[name] ??= []).push(value)
  }
  return { positionals, flags, lists }
}

export function intFlag(value: string | boolean | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer between ${min} and ${max}`)
  return n
}

export const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined)
