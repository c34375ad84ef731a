// The sessions a provider's removal touches: the window's Remove confirmation and `loopdesk config unset` name them.
import type { SessionRow } from './methods'
import { sessionTitle } from './session-title'

export interface ProviderUse {
  /** chose one of its models (sessions.patch `model`, `/model`): their runs fail until another is chosen */
  pinned: SessionRow[]
  /** last ran on it without a choice of their own: their next run uses the default model instead */
  lastRan: SessionRow[]
}

const providerOf = (ref: string | undefined) => (ref && ref.indexOf('/') > 0 ? ref.slice(0, ref.indexOf('/')) : undefined)

export function sessionsUsingProvider(rows: readonly SessionRow[], provider: string): ProviderUse {
  const use: ProviderUse = { pinned: [], lastRan: [] }
  for (const r of rows) {
    if (r.modelOverride) {
      if (providerOf(r.modelOverride) === provider) use.pinned.push(r)
    } else if (r.modelProvider === provider) use.lastRan.push(r)
  }
  return use
}

type NameOf = (r: SessionRow) => string
/** the window names a session by its title, the CLI by its key */
export const byTitle: NameOf = (r) => `“${sessionTitle(r)}”`
export const byKey: NameOf = (r) => r.key

/** a few of the sessions ("“a”, “b” and 3 more") */
export function someSessions(rows: readonly SessionRow[], nameOf: NameOf = byTitle, max = 3): string {
  const names = rows.slice(0, max).map(nameOf)
  const more = rows.length - names.length
  return more > 0 ? `${names.join(', ')} and ${more} more` : names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('')
}

const sessions = (n: number) => (n === 1 ? '1 session' : `${n} sessions`)

/**
 * What removing the provider does to its sessions, in sentences (none: nothing). `defaultModel` is the model a
 * session without a choice of its own falls back to; one of the removed provider's own is no fallback.
 */
export function providerUseText(use: ProviderUse, provider: string, defaultModel: string | undefined, nameOf: NameOf = byTitle): string[] {
  const out: string[] = []
  const fallbackGone = !defaultModel || providerOf(defaultModel) === provider
  if (use.pinned.length) {
    out.push(
      `${sessions(use.pinned.length)} chose a model of “${provider}” (${someSessions(use.pinned, nameOf)}): ${use.pinned.length === 1 ? 'its' : 'their'} messages fail until another model is chosen (the model name in the conversation header, or /model).`,
    )
  }
  if (use.lastRan.length) {
    out.push(
      `${sessions(use.lastRan.length)} last ran on “${provider}” (${someSessions(use.lastRan, nameOf)}): ${
        fallbackGone ? 'with no usable default model, their next message fails too.' : `from ${use.lastRan.length === 1 ? 'its' : 'their'} next message ${use.lastRan.length === 1 ? 'it uses' : 'they use'} the default model, ${defaultModel}.`
      }`,
    )
  }
  return out
}
