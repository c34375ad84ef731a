// Common fixtures of the faults suite: a state dir with loopdesk.json pointing at the scripted model
// server (provider `mock`, with an API key that the suite treats as a secret), the gateway token, and a
// model script that reacts to markers in the latest user message.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { CapturedRequest, ModelServer, Turn } from '../../fixtures/model-server'
import { SUMMARY_SYSTEM_PROMPT } from '../../../src/main/runtime/compaction/summarize'

export const newToken = () => `tok-${randomBytes(24).toString('base64url')}`
export const newApiKey = () => `sk-faults-${randomBytes(24).toString('hex')}`

export function tempStateDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `ld-faults-${prefix}-`))
}

export interface SuiteConfigOptions {
  apiKey: string
  /** small-context model `mock/small` (compaction) */
  smallContextWindow?: number
  timeoutSeconds?: number
  execAllowlist?: string[]
  extra?: Record<string, unknown>
  maxConcurrent?: number
}

export function suiteConfig(server: ModelServer, o: SuiteConfigOptions): Record<string, any> {
  return {
    models: {
      providers: {
        mock: {
          baseUrl: server.openaiBaseUrl,
          api: 'openai-completions',
          apiKey: o.apiKey,
          models: [
            { id: 'm1', name: 'Mock', contextWindow: 32000, maxTokens: 1024 },
            { id: 'small', name: 'Small', contextWindow: o.smallContextWindow ?? 6000, maxTokens: 256 },
          ],
        },
      },
    },
    agents: {
      defaults: {
        model: { primary: 'mock/m1' },
        timeoutSeconds: o.timeoutSeconds ?? 120,
        compaction: { reserveTokens: 1000, keepRecentTurns: 1 },
        ...(o.maxConcurrent ? { maxConcurrent: o.maxConcurrent } : {}),
      },
    },
    tools: { exec: { allowlist: o.execAllowlist ?? ['sleep *'] } },
    ...o.extra,
  }
}

export function writeConfig(stateDir: string, config: Record<string, unknown>): string {
  const file = path.join(stateDir, 'loopdesk.json')
  fs.writeFileSync(file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 })
  return file
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((c: { text?: string }) => c?.text ?? '').join('') : ''

export const isSummaryRequest = (req: CapturedRequest) => {
  const sys = (req.body?.messages ?? []).find((m: { role: string }) => m.role === 'system' || m.role === 'developer')
  return textOf(sys?.content) === SUMMARY_SYSTEM_PROMPT
}

/** The newest message of the request (a tool result after a tool call, else the user's prompt). */
export function lastMessage(req: CapturedRequest): { role: string; text: string } {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const m = msgs.at(-1)
  return { role: m?.role ?? '', text: textOf(m?.content) }
}

/** Text of the newest user message of the request. */
export function lastUserText(req: CapturedRequest): string {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  return textOf([...msgs].reverse().find((m) => m.role === 'user')?.content)
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export type { Turn }
