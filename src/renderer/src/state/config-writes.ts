// Config writes (Settings and its forms): a merge patch or a provider rename, sent with the hash the settings
// were read at; a conflict reloads them, a rate limit waits and sends again. A chunk of its own, loaded by the
// first write (state/controller.ts): what first paint loads stays under 500 kB (test/renderer-bundle.test.ts).
import type { StoreApi } from 'zustand/vanilla'
import type { Bridge } from '../../../shared/bridge'
import type { ErrorShape, Result, Results } from '../../../shared/methods'
import { errorText } from './error-text'
import type { SettingsState } from './stores'

/** A refused config save is retried at most this many times (the gateway allows 3 writes per 60 s). */
const MAX_SAVE_RETRIES = 5
/** Longest wait for a retry we accept from the gateway. */
const MAX_SAVE_RETRY_MS = 120_000

/** ms to wait before sending a refused request again, when the error says it may be retried. */
export function retryDelay(e: ErrorShape): number | undefined {
  if (e.code !== 'UNAVAILABLE' || !e.retryable) return undefined
  const ms = e.retryAfterMs
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return undefined
  return Math.min(ms, MAX_SAVE_RETRY_MS)
}

export class ConfigWrites {
  constructor(
    private readonly bridge: Bridge,
    private readonly settings: StoreApi<SettingsState>,
    private readonly toast: (text: string) => void,
    private readonly loadSettings: () => Promise<void>,
  ) {}

  /**
   * Applies a config merge patch; secrets in it are write-only (the result reports set/not set).
   * A save the gateway refuses for now (config writes are rate limited: UNAVAILABLE + retryable +
   * retryAfterMs) is sent again once that time has passed — the form keeps what the user typed while
   * the promise is pending, and the Settings dialog says when the retry happens (`saveRetry`).
   */
  async patch(patch: Record<string, unknown>, what: string, replacePaths?: string[]): Promise<boolean> {
    return !!(await this.write((baseHash) => this.bridge.settingsSet({ patch, baseHash, ...(replacePaths ? { replacePaths } : {}) }), what))
  }

  /**
   * Renames a provider of one's own (`loopdesk.config.renameProvider`): its entry, its stored key (moved by
   * the runtime, never through this window) and the model refs naming it move in one write, with `patch` —
   * the form's edits of the entry under its new name. Saved and refused like patchConfig.
   */
  async renameProvider(from: string, to: string, patch: Record<string, unknown>, what: string, replacePaths?: string[]): Promise<boolean> {
    return !!(await this.write((baseHash) => this.bridge.providerRename({ from, to, patch, baseHash, ...(replacePaths ? { replacePaths } : {}) }), what))
  }

  /** one config write with the hash the settings were read at: a conflict reloads them, a rate limit waits and retries */
  private async write(send: (baseHash: string | undefined) => Promise<Result<Results['config.patch']>>, what: string): Promise<Results['config.patch'] | undefined> {
    let cur: Results['config.get'] | undefined
    let r: Results['config.patch'] | undefined
    for (let attempt = 0; ; attempt++) {
      cur = this.settings.getState().config
      // a transport that throws is a failure like any other, never retried (no retryAfterMs)
      const res: Result<Results['config.patch']> = await send(cur?.hash).catch((err: unknown) => ({ ok: false, error: { code: 'UNAVAILABLE', message: errorText(err) } }))
      if (res.ok) {
        r = res.data
        break
      }
      if ((res.error.details as { code?: string } | undefined)?.code === 'CONFLICT') {
        // the file changed since the form was filled (another window, the CLI, an editor): saving over
        // it could undo that change, so show what is there now and let the user save again
        await this.loadSettings()
        this.toast(`${what}: the settings were changed elsewhere meanwhile (another window, the CLI or an editor). They are reloaded — check them and save again.`)
        return undefined
      }
      const wait = attempt < MAX_SAVE_RETRIES ? retryDelay(res.error) : undefined
      if (wait === undefined) {
        this.toast(`${what}: ${errorText(res.error)}`)
        return undefined
      }
      const rateLimited = (res.error.details as { code?: string } | undefined)?.code === 'RATE_LIMITED'
      if (!(await this.waitToRetrySave(wait, rateLimited, what))) return undefined
    }
    const done = r
    // issues: the save may have fixed the file's problems (or only some); older runtimes do not say.
    // fileConfig: while problems remain, what the file says — the saved values the forms show (config is the
    // last good one); gone once the file is valid
    const issues = done.issues
    this.settings.setState((s) => ({
      config: s.config
        ? { ...s.config, hash: done.hash, config: done.config, fileConfig: done.fileConfig, secrets: done.secrets, ...(issues ? { issues, valid: issues.length === 0 } : {}) }
        : s.config,
    }))
    // Keys and endpoints change which models are usable.
    const models = await this.bridge.modelsList({}).catch(() => undefined)
    if (models?.ok) this.settings.setState({ models: models.data.models, defaultModel: models.data.defaultModel, modelsLoaded: true })
    if (!cur) await this.loadSettings()
    return done
  }

  private saveWaiters = new Set<{ retryAt: number; rateLimited: boolean; what: string; settle(go: boolean): void }>()

  /** Waits until a refused save may be sent again; false when the user cancelled it (or on dispose). */
  private waitToRetrySave(ms: number, rateLimited: boolean, what: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const w = {
        retryAt: Date.now() + ms,
        rateLimited,
        what,
        settle: (go: boolean) => {
          clearTimeout(timer)
          this.saveWaiters.delete(w)
          this.publishSaveRetry()
          resolve(go)
        },
      }
      const timer = setTimeout(() => w.settle(true), ms)
      this.saveWaiters.add(w)
      this.publishSaveRetry()
    })
  }

  private publishSaveRetry() {
    const all = [...this.saveWaiters]
    const last = all.reduce<(typeof all)[number] | undefined>((a, b) => (!a || b.retryAt > a.retryAt ? b : a), undefined)
    this.settings.setState({
      saveRetry: last ? { retryAt: last.retryAt, count: all.length, rateLimited: all.some((w) => w.rateLimited), what: last.what } : undefined,
    })
  }

  /** Drops the saves waiting to be retried (the forms keep their values; the user may save again). */
  cancelRetries() {
    for (const w of [...this.saveWaiters]) w.settle(false)
  }

  /** First usable model: when no default model is set yet, use one of this provider's. */
  async ensureDefaultModel(provider: string): Promise<void> {
    const { config, models } = this.settings.getState()
    // the file's default (saved while it has problems) counts: never overwrite the user's choice
    const primary = ((config?.fileConfig ?? config?.config) as { agents?: { defaults?: { model?: { primary?: string } } } } | undefined)?.agents?.defaults?.model?.primary
    if (primary) return
    const pick = models.find((m) => m.provider === provider && m.configured)
    if (pick) await this.patch({ agents: { defaults: { model: { primary: pick.ref } } } }, 'Could not set the default model')
  }
}
