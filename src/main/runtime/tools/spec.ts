// Static description of a tool (what the catalog shows) kept apart from its ctx-bound implementation.
import type { AgentTool, AgentToolResult, AgentToolUpdateCallback } from '@earendil-works/pi-agent-core'
import { toToolDeclaration, type Tool } from '@earendil-works/pi-ai'
import type { Static, TSchema } from 'typebox'
import type { ToolRunContext } from '../contracts'

export interface ToolSpec<P extends TSchema = TSchema> {
  name: string
  label: string
  description: string
  parameters: P
  needsApproval?: boolean
  /** changes nothing on this machine (files, processes): offered in read-only sessions (permission-mode.ts) */
  readOnly?: boolean
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
  const tool: AgentTool<P, any> = {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    executionMode: spec.executionMode,
    execute: (toolCallId, params, signal, onUpdate) => def.execute(ctx, params, signal, toolCallId, onUpdate),
  }
  boundSpecs.set(tool, spec)
  return tool
}

const boundSpecs = new WeakMap<object, ToolSpec<any>>()
const specDeclarations = new WeakMap<ToolSpec<any>, Tool>()

/**
 * pi's declaration of a tool (name, description, plain JSON parameters) for the leading system message.
 * pi builds it with a JSON round trip of the schema; for tools made by bindTool it is built once per
 * spec, since specs and their schemas are module constants. Any other tool (or a bound tool whose
 * fields were replaced) gets a fresh one.
 */
export function toolDeclaration(tool: AgentTool<any, any>): Tool {
  const spec = boundSpecs.get(tool)
  if (!spec || tool.name !== spec.name || tool.description !== spec.description || tool.parameters !== spec.parameters) {
    return toToolDeclaration(tool)
  }
  let decl = specDeclarations.get(spec)
  if (!decl) specDeclarations.set(spec, (decl = toToolDeclaration(tool)))
  return decl
}
