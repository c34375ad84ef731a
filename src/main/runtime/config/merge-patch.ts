// RFC 7396 JSON Merge Patch: objects merge recursively, null deletes, anything else replaces.
import { invalid } from '../../api/errors'
import { isPlainObject } from './validate'

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

export function applyMergePatch(target: unknown, patch: unknown, at = ''): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch)
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    // A JSON-parsed "__proto__" key would otherwise rewrite the result's prototype.
    if (FORBIDDEN_KEYS.has(key)) throw invalid(`config patch: forbidden key "${at ? `${at}.` : ''}${key}"`)
    if (value === null) delete result[key]
    else result[key] = applyMergePatch(result[key], value, at ? `${at}.${key}` : key)
  }
  return result
}
