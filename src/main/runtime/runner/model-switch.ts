// A session that last ran on a model no longer configured, with no model chosen for it, runs on the default
// model from its next message: said once, on that run (agent `error` {reason:"model_changed"} and stored with
// its first reply, so a reload still shows it) — a local-model chat must not move to a cloud model unsaid.
import type { SessionEntry } from '../contracts'

export interface ModelSwitch {
  from: string
  to: string
  /** the note under the run */
  message: string
}

/**
 * The switch this run makes, if it is one: the session's last model (its row's modelProvider/model) cannot be
 * resolved any more and the run uses another. A model asked for by the request or chosen for the session is no
 * silent switch (one that is gone fails the run instead).
 */
export function modelSwitchOf(
  entry: Pick<SessionEntry, 'modelOverride' | 'modelProvider' | 'model'>,
  to: string,
  asked: boolean,
  providerKnown: (provider: string) => boolean,
  modelKnown: (ref: string) => boolean,
): ModelSwitch | undefined {
  if (asked || entry.modelOverride || !entry.modelProvider || !entry.model) return undefined
  const from = `${entry.modelProvider}/${entry.model}`
  if (from === to || modelKnown(from)) return undefined
  const why = providerKnown(entry.modelProvider) ? 'that model is no longer configured' : 'its provider was removed'
  return { from, to, message: `Model changed: ${from} → ${to} (${why}). This session now uses the default model.` }
}
