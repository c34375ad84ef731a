// Fills every default the runtime relies on, so the rest of the code reads one complete object.
import path from 'node:path'
import { normalizeQueueMode } from '../../../shared/queue-mode'
import { DEFAULT_AGENT_ID } from '../../../shared/session-key'
import type { LoopdeskConfig, ResolvedConfig } from '../contracts'
import { expandHome } from './state-dir'

export const CONFIG_DEFAULTS = {
  timeoutSeconds: 600,
  thinkingDefault: 'off',
  verboseDefault: 'off',
  reasoningDefault: 'off',
  reserveTokens: 16_384,
  keepRecentTurns: 3,
  blockStreamingDefault: 'off',
  blockStreamingBreak: 'text_end',
  bootstrapMaxChars: 20_000,
  maxConcurrent: 4,
  // OpenClaw's LLM idle timeout is 120 s; the notice comes well before it
  llm: { idleTimeoutSeconds: 120, silenceNoticeSeconds: 20 },
  // OpenClaw 2026.9's built-in queue defaults (resolveQueueSettingsCore, src/auto-reply/reply/queue/settings.ts):
  // a message arriving while a run is active steers it; April's were collect / 1000 ms
  queue: { mode: 'steer', debounceMs: 500, cap: 20, drop: 'summarize' },
  exec: { approvalTimeoutMs: 120_000, timeoutSeconds: 120, maxOutputChars: 100_000 },
  webFetch: { maxBytes: 2_000_000, timeoutMs: 30_000 },
  gateway: { port: 18789, bind: 'loopback' },
  // OpenClaw's session.maintenance.resetArchiveRetention defaults to its pruneAfter, 30 days
  archiveRetentionDays: 30,
} as const

/** Paths in the config may use `~`; relative ones are relative to the state dir. */
/**
 * The channel Loopdesk's messages arrive on, as OpenClaw names the one its chat.send dispatches through
 * (INTERNAL_MESSAGE_CHANNEL): `messages.queue.byChannel.webchat` / `debounceMsByChannel.webchat` apply to them.
 */
export const MESSAGE_CHANNEL = 'webchat'

export const resolveUserPath = (p: string, stateDir: string): string => path.resolve(stateDir, expandHome(p))

export function resolveConfig(raw: LoopdeskConfig, stateDir: string, env: NodeJS.ProcessEnv = {}): ResolvedConfig {
  const d = raw.agents?.defaults ?? {}
  const D = CONFIG_DEFAULTS
  const workspace = d.workspace ? resolveUserPath(d.workspace, stateDir) : path.join(stateDir, 'workspace')
  const model = d.model?.primary

  const list = raw.agents?.list ?? []
  const defaultAgentId = (list.find((a) => a.default) ?? list[0])?.id ?? DEFAULT_AGENT_ID
  const agents: ResolvedConfig['agents'] = list.length
    ? list.map((a) => ({
        id: a.id,
        // The default agent uses the default workspace; others get their own next to it.
        workspace: a.workspace
          ? resolveUserPath(a.workspace, stateDir)
          : a.id === defaultAgentId
            ? workspace
            : path.join(stateDir, `workspace-${a.id}`),
        ...((a.model ?? model) ? { model: a.model ?? model } : {}),
      }))
    : [{ id: DEFAULT_AGENT_ID, workspace, ...(model ? { model } : {}) }]

  const q = raw.messages?.queue ?? {}
  const exec = raw.tools?.exec ?? {}
  const wf = raw.tools?.webFetch ?? {}
  const gw = raw.gateway ?? {}
  const token = gw.auth?.token ?? (env.LOOPDESK_GATEWAY_TOKEN?.trim() || undefined)

  return {
    raw,
    defaultAgentId,
    agents,
    defaults: {
      ...(model ? { model } : {}),
      timeoutSeconds: d.timeoutSeconds ?? D.timeoutSeconds,
      thinkingDefault: d.thinkingDefault ?? D.thinkingDefault,
      verboseDefault: d.verboseDefault ?? D.verboseDefault,
      reasoningDefault: d.reasoningDefault ?? D.reasoningDefault,
      workspace,
      compaction: {
        reserveTokens: d.compaction?.reserveTokens ?? D.reserveTokens,
        keepRecentTurns: d.compaction?.keepRecentTurns ?? D.keepRecentTurns,
      },
      blockStreamingDefault: d.blockStreamingDefault ?? D.blockStreamingDefault,
      blockStreamingBreak: d.blockStreamingBreak ?? D.blockStreamingBreak,
      bootstrapMaxChars: d.bootstrapMaxChars ?? D.bootstrapMaxChars,
      maxConcurrent: d.maxConcurrent ?? D.maxConcurrent,
      llm: {
        idleTimeoutSeconds: d.llm?.idleTimeoutSeconds ?? D.llm.idleTimeoutSeconds,
        silenceNoticeSeconds: d.llm?.silenceNoticeSeconds ?? D.llm.silenceNoticeSeconds,
      },
    },
    queue: {
      // OpenClaw's order: the channel's entry, then the global one
      mode: normalizeQueueMode(q.byChannel?.[MESSAGE_CHANNEL]) ?? normalizeQueueMode(q.mode) ?? D.queue.mode,
      // v4 has only the per-channel key; `debounceMs` (April's global one) is still read after it
      debounceMs: q.debounceMsByChannel?.[MESSAGE_CHANNEL] ?? q.debounceMs ?? D.queue.debounceMs,
      cap: q.cap ?? D.queue.cap,
      drop: q.drop ?? D.queue.drop,
    },
    exec: {
      allowlist: [...(exec.allowlist ?? [])],
      approvalTimeoutMs: exec.approvalTimeoutMs ?? D.exec.approvalTimeoutMs,
      timeoutSeconds: exec.timeoutSeconds ?? D.exec.timeoutSeconds,
      maxOutputChars: exec.maxOutputChars ?? D.exec.maxOutputChars,
      env: {
        passthrough: [...(exec.envPassthrough ?? [])],
        // a configured provider's key variable is a secret whatever its name
        secretNames: [...new Set(Object.values(raw.models?.providers ?? {}).flatMap((p) => (p.apiKeyEnv ? [p.apiKeyEnv] : [])))],
      },
    },
    webFetch: {
      maxBytes: wf.maxBytes ?? D.webFetch.maxBytes,
      timeoutMs: wf.timeoutMs ?? D.webFetch.timeoutMs,
      // the network policy is strict unless the file opts in (see tools/net-guard.ts)
      allowLoopback: wf.allowLoopback === true,
      allowPrivateNetwork: wf.allowPrivateNetwork === true,
    },
    gateway: {
      port: gw.port ?? D.gateway.port,
      bind: gw.bind ?? D.gateway.bind,
      ...(token ? { token } : {}),
      allowedOrigins: [...(gw.allowedOrigins ?? [])],
    },
    session: { archiveRetentionDays: raw.session?.archiveRetentionDays ?? D.archiveRetentionDays },
  }
}
