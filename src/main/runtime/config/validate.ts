// Turns schema violations into one readable issue per bad path. TypeBox's compiled Check decides
// validity; this walker (over the same JSON-schema subset our schema uses) explains it, because the
// compiled error iterator stops early and speaks in keywords ("must be equal to constant").
import { Compile } from 'typebox/compile'
import type { TSchema } from 'typebox'
import type { LoopdeskConfig } from '../contracts'
import { LoopdeskConfigSchema } from './schema'
import type { ConfigIssue } from './types'

type Schema = {
  type?: string
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  patternProperties?: Record<string, Schema>
  items?: Schema
  anyOf?: Schema[]
  const?: unknown
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  'x-message'?: string
}

const checker = Compile(LoopdeskConfigSchema)

/** All schema and consistency problems of a parsed config (empty = valid). */
export function validateConfig(value: unknown): ConfigIssue[] {
  if (!isPlainObject(value)) return [{ path: '', message: 'must be an object ({ ... })' }]
  const issues: ConfigIssue[] = []
  if (!checker.Check(value)) {
    walk(LoopdeskConfigSchema as unknown as Schema, value, '', issues)
    if (issues.length === 0) {
      // The walker missed a rule the compiled schema enforces: report TypeBox's own words.
      const first = [...checker.Errors(value)].find((e) => e.keyword !== 'boolean')
      issues.push({ path: pointerToPath(first?.instancePath ?? ''), message: first?.message ?? 'invalid' })
    }
  }
  if (issues.length === 0) issues.push(...consistency(value as LoopdeskConfig))
  return issues
}

/**
 * validateConfig plus the consistency problems it skips while the schema fails (as far as the shape lets
 * them be checked): what a file already has, so a patch fixing its schema problems is not blamed for these.
 */
export function knownIssues(value: unknown): ConfigIssue[] {
  const issues = validateConfig(value)
  if (issues.length === 0 || !isPlainObject(value)) return issues
  try {
    return [...issues, ...consistency(value as LoopdeskConfig)]
  } catch {
    return issues // a shape consistency() cannot walk
  }
}

function walk(schema: Schema, v: unknown, at: string, out: ConfigIssue[]): void {
  if (schema.anyOf) {
    if (schema.anyOf.some((s) => matches(s, v))) return
    const consts = schema.anyOf.filter((s) => 'const' in s).map((s) => JSON.stringify(s.const))
    out.push({ path: at, message: consts.length === schema.anyOf.length ? `must be one of ${consts.join(', ')}` : 'has an invalid value' })
    return
  }
  switch (schema.type) {
    case 'object': {
      if (!isPlainObject(v)) return void out.push({ path: at, message: 'must be an object' })
      for (const key of schema.required ?? []) if (!(key in v)) out.push({ path: join(at, key), message: 'is required' })
      for (const [key, child] of Object.entries(v)) {
        const p = join(at, key)
        const prop = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined
        if (prop) {
          walk(prop, child, p, out)
          continue
        }
        const pattern = Object.entries(schema.patternProperties ?? {}).find(([re]) => new RegExp(re).test(key))
        if (pattern) walk(pattern[1], child, p, out)
        else if (schema.additionalProperties === false) {
          const hint = suggest(key, Object.keys(schema.properties ?? {}))
          out.push({ path: p, message: hint ? `unknown key (did you mean "${hint}"?)` : 'unknown key' })
        } else if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, child, p, out)
      }
      return
    }
    case 'array':
      if (!Array.isArray(v)) return void out.push({ path: at, message: 'must be an array' })
      if (schema.items) v.forEach((item, i) => walk(schema.items!, item, `${at}[${i}]`, out))
      return
    case 'integer':
    case 'number': {
      const ok = typeof v === 'number' && Number.isFinite(v) && (schema.type === 'number' || Number.isInteger(v))
      const inRange = ok && (schema.minimum === undefined || v >= schema.minimum) && (schema.maximum === undefined || v <= schema.maximum)
      if (!inRange) out.push({ path: at, message: `must be ${schema.type}${range(schema)}` })
      return
    }
    case 'string': {
      const ok =
        typeof v === 'string' &&
        (schema.minLength === undefined || v.length >= schema.minLength) &&
        (schema.maxLength === undefined || v.length <= schema.maxLength) &&
        (schema.pattern === undefined || new RegExp(schema.pattern).test(v))
      if (!ok) {
        const generic = schema.minLength ? 'must be a non-empty string' : 'must be a string'
        out.push({ path: at, message: typeof v === 'string' && schema['x-message'] ? schema['x-message'] : generic })
      }
      return
    }
    case 'boolean':
      if (typeof v !== 'boolean') out.push({ path: at, message: 'must be true or false' })
      return
    default:
      if ('const' in schema && v !== schema.const) out.push({ path: at, message: `must be ${JSON.stringify(schema.const)}` })
  }
}

const matchers = new WeakMap<Schema, ReturnType<typeof Compile>>()
function matches(schema: Schema, v: unknown): boolean {
  let m = matchers.get(schema)
  if (!m) matchers.set(schema, (m = Compile(schema as unknown as TSchema)))
  return m.Check(v)
}

/** Rules a schema cannot express. */
function consistency(cfg: LoopdeskConfig): ConfigIssue[] {
  const out: ConfigIssue[] = []
  const list = cfg.agents?.list ?? []
  const seen = new Set<string>()
  list.forEach((a, i) => {
    if (seen.has(a.id)) out.push({ path: `agents.list[${i}].id`, message: `duplicate agent id "${a.id}"` })
    seen.add(a.id)
  })
  const defaults = list.filter((a) => a.default)
  if (defaults.length > 1) out.push({ path: 'agents.list', message: 'only one agent may have "default": true' })
  for (const [id, p] of Object.entries(cfg.models?.providers ?? {})) {
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/i.test(id)) out.push({ path: `models.providers.${id}`, message: 'provider id must be letters, digits, ".", "_" or "-"' })
    if (p.apiKey && p.apiKeyEnv) out.push({ path: `models.providers.${id}`, message: 'set either apiKey or apiKeyEnv, not both' })
    const ids = new Set<string>()
    ;(p.models ?? []).forEach((m, i) => {
      if (ids.has(m.id)) out.push({ path: `models.providers.${id}.models[${i}].id`, message: `duplicate model id "${m.id}"` })
      ids.add(m.id)
    })
  }
  return out
}

function range(s: Schema): string {
  if (s.minimum !== undefined && s.maximum !== undefined) return ` between ${s.minimum} and ${s.maximum}`
  if (s.minimum !== undefined) return ` >= ${s.minimum}`
  if (s.maximum !== undefined) return ` <= ${s.maximum}`
  return ''
}

const join = (at: string, key: string) => (at ? `${at}.${key}` : key)

function pointerToPath(ptr: string): string {
  return ptr
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : join(acc, seg)), '')
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v)
}

/** The closest known key within edit distance 2 (typo hints). */
function suggest(key: string, known: string[]): string | undefined {
  let best: string | undefined
  let bestD = 3
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase())
    if (d < bestD) {
      bestD = d
      best = k
    }
  }
  return best
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = tmp
    }
  }
  return prev[b.length]
}
