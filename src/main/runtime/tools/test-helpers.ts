// Shared by the tools' tests: temp workspaces and a ToolRunContext wired to a real ApprovalBroker.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { AgentTool, AgentToolResult } from '@earendil-works/pi-agent-core'
import type { ToolRunContext } from '../contracts'
import { ApprovalBroker, type ApprovalEvent } from './approvals'
import { createTools } from './catalog'

export interface Sandbox {
  /** temp dir holding the workspace and an "outside" sibling */
  base: string
  ws: string
  outside: string
  cleanup(): void
}

export function makeSandbox(): Sandbox {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'loopdesk-tools-')))
  const ws = path.join(base, 'ws')
  const outside = path.join(base, 'outside')
  for (const d of [ws, outside]) mkdirSync(d, { recursive: true })
  return { base, ws, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) }
}

export interface TestCtx extends ToolRunContext {
  events: ApprovalEvent[]
  sent: string[]
  broker: ApprovalBroker
}

export function makeCtx(workspaceDir: string, over: Partial<ToolRunContext> & { approvalTimeoutMs?: number } = {}): TestCtx {
  const events: ApprovalEvent[] = []
  const sent: string[] = []
  const broker = new ApprovalBroker({ emit: (e) => events.push(e), timeoutMs: over.approvalTimeoutMs ?? 5000 })
  return {
    workspaceDir,
    runId: 'run-1',
    sessionKey: 'agent:main:main',
    approvals: broker,
    execAllowlist: [],
    execTimeoutSeconds: 30,
    execMaxOutputChars: 20_000,
    webFetch: { maxBytes: 1_000_000, timeoutMs: 5000 },
    sendMessage: (t) => sent.push(t),
    ...over,
    events,
    sent,
    broker,
  }
}

export function tool(ctx: ToolRunContext, name: string): AgentTool<any, any> {
  const t = createTools(ctx).find((x) => x.name === name)
  if (!t) throw new Error(`no tool ${name}`)
  return t
}

export async function run(
  ctx: ToolRunContext,
  name: string,
  params: Record<string, unknown>,
  opts: { signal?: AbortSignal; onUpdate?: (r: AgentToolResult<any>) => void; toolCallId?: string } = {},
): Promise<AgentToolResult<any>> {
  return tool(ctx, name).execute(opts.toolCallId ?? 'call-1', params as never, opts.signal, opts.onUpdate)
}

export function textOf(r: AgentToolResult<any>): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mimeType}]`)).join('\n')
}
