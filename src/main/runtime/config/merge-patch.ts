// RFC 7396 JSON Merge Patch: objects merge recursively, null deletes, anything else replaces.
// Config writes use OpenClaw's stricter flavour (`configPatchOptions`): arrays of `{id}` objects merge by
// id, and a patch that would drop existing array entries is refused unless the caller names that array in
// `replacePaths` — so a client holding a stale or partial list cannot silently truncate it.
import { isDeepStrictEqual } from 'node:util'
import { invalid } from '../../api/errors'
import { isPlainObject } from './validate'

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

export interface MergePatchOptions {
  /** arrays whose base and patch entries all carry a string `id` merge entry by entry (OpenClaw) */
  mergeArraysById?: boolean
  /** refuse a patch that removes entries from an existing array, unless its path is in replacePaths */
  guardArrayRemovals?: boolean
  /** normalized paths (see normalizeReplacePath) whose arrays the patch replaces wholesale */
  replacePaths?: ReadonlySet<string>
}

type Entry = Record<string, unknown> & { id: string }
const hasId = (v: unknown): v is Entry => isPlainObject(v) && typeof v.id === 'string' && v.id.length > 0

export function applyMergePatch(target: unknown, patch: unknown, opts: MergePatchOptions = {}, at = ''): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch)
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    // A JSON-parsed "__proto__" key would otherwise rewrite the result's prototype.
    if (FORBIDDEN_KEYS.has(key)) throw invalid(`config patch: forbidden key "${at ? `${at}.` : ''}${key}"`)
    const path = at ? `${at}.${key}` : key
    if (value === null) delete result[key]
    else if (Array.isArray(value) && opts.replacePaths?.has(path)) result[key] = structuredClone(value)
    else if (Array.isArray(value) && Array.isArray(result[key])) result[key] = mergeArrays(result[key] as unknown[], value, opts, path)
    else result[key] = applyMergePatch(result[key], value, opts, path)
  }
  return result
}

function mergeArrays(base: unknown[], patch: unknown[], opts: MergePatchOptions, path: string): unknown[] {
  // an empty list merges into nothing: it is a removal of every entry (guarded), never a silent no-op
  if (opts.mergeArraysById && patch.length > 0 && base.every(hasId) && patch.every(hasId)) {
    const merged: unknown[] = [...base]
    const index = new Map(base.map((e, i) => [e.id, i]))
    for (const entry of patch) {
      const i = index.get(entry.id)
      if (i === undefined) {
        index.set(entry.id, merged.length)
        merged.push(structuredClone(entry))
      } else {
        merged[i] = applyMergePatch(merged[i], entry, opts, `${path}[]`)
      }
    }
    return merged
  }
  if (opts.guardArrayRemovals) {
    const dropped = base.filter((b) => !patch.some((p) => isDeepStrictEqual(p, b))).length
    if (dropped > 0) {
      throw invalid(
        `config.patch would remove ${dropped} existing entr${dropped === 1 ? 'y' : 'ies'} from ${path}; send the whole new array and list "${path}" in replacePaths to replace it`,
        { path, removed: dropped },
      )
    }
  }
  return structuredClone(patch)
}

const SEGMENT = /^[^.[\]]+(\[\d*\])?$/

/**
 * OpenClaw's replacePaths tokens: dot paths, `[]` for "each entry of an id-keyed array". An index inside
 * the path means the same as `[]` (`agents.list[0].skills` → `agents.list[].skills`); a trailing bracket is
 * kept, so `bindings[0]` never authorizes replacing the whole `bindings` array. Returns undefined when the
 * token is malformed.
 */
export function normalizeReplacePath(token: string): string | undefined {
  const segments = token.trim().split('.')
  if (segments.some((s) => !SEGMENT.test(s) || FORBIDDEN_KEYS.has(s.replace(/\[\d*\]$/, '')))) return undefined
  return segments.map((s, i) => (i < segments.length - 1 ? s.replace(/\[\d*\]$/, '[]') : s)).join('.')
}

/** The options config.patch applies with: OpenClaw's id merge, the removal guard and the caller's replacePaths. */
export function configPatchOptions(replacePaths: readonly string[] = []): MergePatchOptions {
  const normalized = new Set<string>()
  for (const token of replacePaths) {
    const p = normalizeReplacePath(token)
    if (p === undefined) throw invalid(`replacePaths: "${token}" is not a config path (dot-separated keys, [] for each entry of a list)`)
    normalized.add(p)
  }
  return { mergeArraysById: true, guardArrayRemovals: true, replacePaths: normalized }
}
