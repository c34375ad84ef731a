// Static description of a tool (what the catalog shows) kept apart from its ctx-bound implementation.
import type { AgentTool, AgentToolResult, AgentToolUpdateCallback } from '@earendil-works/pi-agent-core'
import type { Static, TSchema } from 'typebox'
import type { ToolRunContext } from '../contracts'

export interface ToolSpec<P extends TSchema = TSchema> {
  name: string
  label: string
  description: string
  parameters: P
  needsApproval?: boolean
  /** tools with side effects run one at a time */
  executionMode?: 'sequential' | 'parallel'
}

export type ToolExecute<P extends TSchema> = (
  ctx: ToolRunContext,
  params: Static<P>,
  signal: AbortSignal | undefined,
  toolCallId: string,
  onUpdate: AgentToolUpdateCallback<any> | undefined,
) => Promise<AgentToolResult<any>>

export interface ToolDefinition<P extends TSchema = TSchema> {
  spec: ToolSpec<P>
  execute: ToolExecute<P>
}

export function defineTool<P extends TSchema>(spec: ToolSpec<P>, execute: ToolExecute<P>): ToolDefinition<P> {
  return { spec, execute }
}

export function bindTool<P extends TSchema>(def: ToolDefinition<P>, ctx: ToolRunContext): AgentTool<P, any> {
  const { spec } = def
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    executionMode: spec.executionMode,
    execute: (toolCallId, params, signal, onUpdate) => def.execute(ctx, params, signal, toolCallId, onUpdate),
  }
}
