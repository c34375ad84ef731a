// The `/model` chat command (OpenClaw has one): show the session's model, or choose one for its next runs.
import type { RuntimeCore } from './handlers-context'
import { requireEntry } from './handlers-context'
import { setModel } from './handlers-sessions'
import type { SessionEntry } from './contracts'

/** What the session's runs use when nothing is chosen for it: its agent's model, else the global default. */
export function sessionDefaultModel(core: RuntimeCore, agentId: string): string | undefined {
  const cfg = core.config.current
  return cfg.agents.find((a) => a.id === agentId)?.model ?? cfg.defaults.model
}

const HOW_TO =
  'Choose another with /model <provider/model> (or the model name in the conversation header); /model default goes back to the default model.'

/**
 * `/model`, `/model status|list`: where the session stands and the configured models. `/model default`: back to
 * the default model. `/model <provider/model>`: that model for the session's next runs (a run already going
 * keeps its model). An unknown model is refused with the reason; nothing is written then.
 */
export async function modelCommand(core: RuntimeCore, key: string, agentId: string, rest: string, running: boolean): Promise<string[]> {
  const arg = rest.trim()
  const def = sessionDefaultModel(core, agentId)
  const next = running ? ' The reply running now keeps its model; the change applies from the next message.' : ''
  if (!arg || /^(status|list)$/i.test(arg)) {
    const entry = core.store(agentId).get(key)
    const usable = core.models().list().filter((m) => m.configured).map((m) => (m.ref === def ? `${m.ref} (default)` : m.ref))
    return [
      entry?.modelOverride
        ? `This session uses ${entry.modelOverride} (chosen for it; the default is ${def ?? 'not set'}).`
        : `This session uses the default model${def ? `, ${def}` : ' (none is set)'}.`,
      usable.length ? `Configured models: ${usable.join(', ')}.` : 'No model is configured yet: add one in Settings → Models.',
      HOW_TO,
    ]
  }
  if (/^default$/i.test(arg)) {
    await patchModel(core, key, agentId, (e) => {
      delete e.modelOverride
    })
    return [`This session now uses the default model${def ? `, ${def}` : ''}.${next}`]
  }
  let ref: string
  try {
    ref = core.models().resolve(arg).ref
  } catch (err) {
    return [`Could not choose ${arg}: ${(err as Error).message}.`, HOW_TO]
  }
  await patchModel(core, key, agentId, (e) => setModel(e, ref))
  return [`This session now uses ${ref}.${next}`]
}

async function patchModel(core: RuntimeCore, key: string, agentId: string, change: (e: SessionEntry) => void): Promise<void> {
  requireEntry(core, key, agentId)
  await core.store(agentId).update(key, (cur) => {
    if (!cur) return undefined
    const next = { ...cur, updatedAt: Date.now() }
    change(next)
    return next
  })
  core.sessionChanged(key, 'patch')
}
