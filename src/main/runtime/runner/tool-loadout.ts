// A run's tools, handed to pi-agent-core so that its per-request tool diff has nothing to compare.
//
// Why: before every model request pi 0.87 diffs the executable tools (`context.tools`) against the tools
// the conversation's system messages declare (`declareToolChanges` → `getToolStateChanges`), and it does
// so by JSON round-tripping every tool schema about five times per request (there is no identity
// shortcut). With the nine built-in tools that was ~0.5 ms and ~100 KB of garbage per request — the
// largest single cost of a run. A run's tools never change while it runs, so that diff is always empty.
//
// How: both sides of the diff are kept empty — the Agent's state has no tools and its leading system
// message declares none — and the documented request hooks put them back after the diff:
//   prepareRequest (after the diff, before the request): the leading message gains its declarations and
//     the context gains the executable tools, so the request, transformContext and tool execution see
//     exactly what they saw before;
//   prepareNextTurnWithContext (before the next turn's diff): both are taken out again.
// Every context therefore holds either both or neither, each of which diffs as "no change" — so even if
// pi called the diff at another point it would only lose the speed-up, never declare or drop a tool.
import type { AgentMessage, AgentTool, AgentContext, AgentLoopTurnUpdate, AgentRequestUpdate } from '@earendil-works/pi-agent-core'
import type { Tool } from '@earendil-works/pi-ai'

type SystemMessage = Extract<AgentMessage, { role: 'system' }>

export interface ToolLoadout {
  /** first message of the Agent's initial state (the system prompt, without tool declarations) */
  readonly leading: AgentMessage
  /** the Agent's initial `tools` (none: they are added per request) */
  readonly initialTools: AgentTool<any, any>[]
  prepareRequest(request: { context: AgentContext }): AgentRequestUpdate | undefined
  prepareNextTurnWithContext(turn: { context: AgentContext }): AgentLoopTurnUpdate | undefined
  /** messages as the model sees them (leading message with its declarations), for hooks that inspect them */
  asDeclared(messages: readonly AgentMessage[]): AgentMessage[]
}

/**
 * `systemPrompt` must be non-empty (our runs always have the base prompt); `declarations` are the tools'
 * pi declarations in the same order as `tools` (what createInitialSystemMessage would carry).
 */
export function createToolLoadout(systemPrompt: string, tools: AgentTool<any, any>[], declarations: Tool[]): ToolLoadout {
  // timestamp 0 and field order as pi's createInitialSystemMessage builds them
  const bare = { role: 'system', content: systemPrompt, timestamp: 0 } as SystemMessage
  const declared = { role: 'system', content: systemPrompt, toolsAdded: declarations, timestamp: 0 } as SystemMessage
  const executable = tools.slice()
  const swapLeading = (messages: readonly AgentMessage[], to: AgentMessage): AgentMessage[] => {
    const copy = messages.slice()
    copy[0] = to
    return copy
  }
  return {
    leading: bare,
    initialTools: [],
    prepareRequest({ context }) {
      if (context.messages[0] !== bare) return undefined // already declared (or not ours): leave as is
      return { context: { ...context, messages: swapLeading(context.messages, declared), tools: executable } }
    },
    prepareNextTurnWithContext({ context }) {
      if (context.messages[0] !== declared) return undefined
      return { context: { ...context, messages: swapLeading(context.messages, bare), tools: [] } }
    },
    asDeclared(messages) {
      return messages[0] === bare ? swapLeading(messages, declared) : messages.slice()
    },
  }
}
