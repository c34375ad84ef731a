// Secrets never leave the main process in clear text: config reads for the UI / gateway get placeholders.
import type { LoopdeskConfig } from '../contracts'
import { isPlainObject } from './validate'

export const REDACTED = '__REDACTED__'

/** Where secrets live in loopdesk.json. */
function secretSlots(cfg: Record<string, unknown>): Array<{ parent: Record<string, unknown>; key: string; path: string }> {
  const out: Array<{ parent: Record<string, unknown>; key: string; path: string }> = []
  const providers = (cfg.models as { providers?: unknown } | undefined)?.providers
  if (isPlainObject(providers)) {
    for (const [id, p] of Object.entries(providers)) {
      if (isPlainObject(p) && 'apiKey' in p) out.push({ parent: p, key: 'apiKey', path: `models.providers.${id}.apiKey` })
    }
  }
  const auth = (cfg.gateway as { auth?: unknown } | undefined)?.auth
  if (isPlainObject(auth) && 'token' in auth) out.push({ parent: auth, key: 'token', path: 'gateway.auth.token' })
  return out
}

/** The paths of the secrets `cfg` holds in clear text (a non-empty string that is not the placeholder). */
export function secretPathsIn(cfg: Record<string, unknown>): string[] {
  return secretSlots(cfg)
    .filter((s) => typeof s.parent[s.key] === 'string' && s.parent[s.key] !== '' && s.parent[s.key] !== REDACTED)
    .map((s) => s.path)
}

export function redactConfig(cfg: LoopdeskConfig): Record<string, unknown> {
  const copy = structuredClone(cfg) as Record<string, unknown>
  for (const s of secretSlots(copy)) if (typeof s.parent[s.key] === 'string') s.parent[s.key] = REDACTED
  return copy
}

/**
 * As redactConfig, for a file that may not be valid: a secret slot holding anything (a number, an object, a
 * list — a key typed without quotes) is replaced too, never sent as it is.
 */
export function redactAnyConfig(cfg: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(cfg)
  for (const s of secretSlots(copy)) if (s.parent[s.key] !== undefined && s.parent[s.key] !== null) s.parent[s.key] = REDACTED
  return copy
}

/**
 * A client that edits a redacted config sends the placeholder back: keep the real value in that case.
 * Returns the paths where a placeholder had no real value to restore.
 */
export function restoreRedacted(next: Record<string, unknown>, prev: Record<string, unknown>): string[] {
  const prevSlots = new Map(secretSlots(prev).map((s) => [s.path, s.parent[s.key]]))
  const unresolved: string[] = []
  for (const s of secretSlots(next)) {
    if (s.parent[s.key] !== REDACTED) continue
    const real = prevSlots.get(s.path)
    if (typeof real === 'string' && real !== REDACTED) s.parent[s.key] = real
    else unresolved.push(s.path)
  }
  return unresolved
}

/** The gateway token's place in loopdesk.json (an installation secret: never in a backup, never restored) */
export const GATEWAY_TOKEN_PATH = 'gateway.auth.token'

/** Replaces the string secrets `pick` selects with REDACTED, in place; returns their paths. */
export function redactIn(cfg: Record<string, unknown>, pick: (path: string) => boolean = () => true): string[] {
  const done: string[] = []
  for (const s of secretSlots(cfg)) {
    if (typeof s.parent[s.key] !== 'string' || s.parent[s.key] === REDACTED || !pick(s.path)) continue
    s.parent[s.key] = REDACTED
    done.push(s.path)
  }
  return done
}

/** Removes the secrets still REDACTED (nothing to put back), in place; returns their paths. */
export function dropRedacted(cfg: Record<string, unknown>): string[] {
  const dropped: string[] = []
  for (const s of secretSlots(cfg)) {
    if (s.parent[s.key] !== REDACTED) continue
    delete s.parent[s.key]
    dropped.push(s.path)
  }
  return dropped
}
