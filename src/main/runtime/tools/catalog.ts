// The set of built-in tools: bound to a run context for the agent, or described for tools.catalog.
import type { AgentTool } from '@earendil-works/pi-agent-core'
import type { ToolInfo } from '../../../shared/methods'
import type { ToolFactory, ToolRunContext } from '../contracts'
import { editTool } from './edit'
import { execTool } from './exec'
import { globTool } from './glob'
import { grepTool } from './grep'
import { lsTool } from './ls'
import { messageTool } from './message'
import { readTool } from './read'
import { bindTool, type ToolDefinition } from './spec'
import { webFetchTool } from './web-fetch'
import { writeTool } from './write'

export const TOOL_DEFINITIONS: readonly ToolDefinition<any>[] = [
  readTool,
  writeTool,
  editTool,
  lsTool,
  globTool,
  grepTool,
  execTool,
  webFetchTool,
  messageTool,
]

export const createTools: ToolFactory = (ctx: ToolRunContext): AgentTool<any, any>[] =>
  TOOL_DEFINITIONS.map((def) => bindTool(def, ctx))

export function toolCatalog(): ToolInfo[] {
  return TOOL_DEFINITIONS.map(({ spec }) => ({
    name: spec.name,
    label: spec.label,
    description: spec.description,
    // plain JSON Schema (drops TypeBox's symbol keys) so it crosses IPC / the wire unchanged
    parameters: JSON.parse(JSON.stringify(spec.parameters)) as unknown,
    needsApproval: spec.needsApproval === true,
  }))
}
