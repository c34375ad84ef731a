// The main thread's side of the socket thread's view of the runtime (socket-thread-protocol.ts AcceptView): the
// configured agents, from the config, and the archived sessions, read once and then followed through the
// `sessions.changed` rows the runtime emits. Each change is pushed to the worker before the event that told it.
import type { SessionsChangedEvent } from '../../shared/events'
import type { RuntimeHost } from '../api/host'
import type { ResolvedConfig } from '../runtime/contracts'
import type { AcceptView } from './socket-thread-protocol'

export class AcceptViewMirror {
  private archived: Set<string>
  private config: ResolvedConfig | undefined
  private unsubscribe: (() => void) | undefined

  /** undefined without a config to read: then the worker acks nothing itself */
  static of(host: RuntimeHost, push: (view: AcceptView) => void): AcceptViewMirror | undefined {
    const config = host.currentConfig?.()
    return config ? new AcceptViewMirror(host, config, push) : undefined
  }

  private constructor(host: RuntimeHost, config: ResolvedConfig, private readonly push: (view: AcceptView) => void) {
    this.config = config
    this.archived = new Set(host.archivedSessionKeys?.() ?? [])
    this.unsubscribe = host.onConfigChange?.((next) => {
      const changed = next.defaultAgentId !== this.config?.defaultAgentId || agentIdsOf(next).join('\n') !== agentIdsOf(this.config!).join('\n')
      this.config = next
      if (!changed) return
      // an agent configured again brings its sessions back, the archived ones among them (no event says so)
      this.archived = new Set(host.archivedSessionKeys?.() ?? [])
      this.push(this.view())
    })
  }

  view(): AcceptView {
    return { agentIds: agentIdsOf(this.config!), defaultAgentId: this.config!.defaultAgentId, archived: [...this.archived] }
  }

  onSessionsChanged(ev: SessionsChangedEvent): void {
    const was = this.archived.has(ev.sessionKey)
    const now = ev.reason === 'delete' ? false : ev.session ? ev.session.archived : was
    if (now === was) return
    if (now) this.archived.add(ev.sessionKey)
    else this.archived.delete(ev.sessionKey)
    this.push(this.view())
  }

  stop(): void {
    this.unsubscribe?.()
  }
}

const agentIdsOf = (config: ResolvedConfig) => config.agents.map((a) => a.id)
