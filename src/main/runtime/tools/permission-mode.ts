// Session permission modes (OpenClaw v4 `permissionMode`), as far as Loopdesk runs them:
//  - guarded (the default): every tool; file tools stay inside the workspace, and a command runs when it is
//    on the allowlist or the user approves it (exec.ts).
//  - read-only: the model is offered only the tools that change nothing on this machine (their spec says
//    `readOnly`): read, ls, glob, grep, web_fetch, message. No write, edit or exec, and no plugin tools —
//    nothing vouches that those only read. The system prompt says so, so the model explains instead of trying.
// A mode applies from the next run on: a run keeps the tools it started with.
// OpenClaw's other two are refused: `workspace` hands approvals to an LLM reviewer (Loopdesk has none) and
// `full` lifts the workspace confinement and all approvals.
import type { AgentTool } from '@earendil-works/pi-agent-core'
import type { PermissionMode } from '../../../shared/methods'
import { invalid } from '../../api/errors'
import { TOOL_DEFINITIONS } from './catalog'

const READ_ONLY_TOOLS = new Set(TOOL_DEFINITIONS.filter((d) => d.spec.readOnly).map((d) => d.spec.name))

/** What the model is told in a read-only session. */
export const READ_ONLY_PROMPT =
  'This session is read-only: you can read, list and search files in the workspace and fetch web pages, but you cannot ' +
  'write or edit files or run commands here. When a task needs a change, describe the change (or show the command) ' +
  'and say that the user can allow changes for this session.'

/** A requested mode as Loopdesk runs it, or a clear INVALID_REQUEST for the modes it does not offer. */
export function supportedPermissionMode(mode: string, method: string): PermissionMode {
  if (mode === 'read-only' || mode === 'guarded') return mode
  if (mode === 'workspace') {
    throw invalid(`${method} permissionMode "workspace" asks an automatic reviewer to approve commands; Loopdesk has none — use "guarded" (you approve them) or "read-only"`)
  }
  throw invalid(`${method} permissionMode "${mode}" is not offered: Loopdesk keeps file tools inside the workspace and asks before commands that are not allow-listed — use "guarded" or "read-only"`)
}

/** The tools a run in this mode may offer the model. */
export function toolsForMode<T extends Pick<AgentTool<any, any>, 'name'>>(mode: PermissionMode | undefined, tools: T[]): T[] {
  return mode === 'read-only' ? tools.filter((t) => READ_ONLY_TOOLS.has(t.name)) : tools
}

/**
 * The answer to a call of a tool the run did not offer. In a read-only session that is most likely a tool that
 * changes something, so say the session is read-only (pi's own "Tool exec not found" reads like a bug);
 * otherwise name the tools there are, so the model can pick one.
 */
export function unavailableToolText(name: string, mode: PermissionMode | undefined, offered: readonly string[]): string {
  const tool = JSON.stringify(name)
  if (mode === 'read-only') {
    return (
      `${tool} is not available: this session is read-only, so no files can be written or edited and no commands can run. ` +
      'Describe the change (or show the command) instead; the user can allow changes for this session.'
    )
  }
  return `There is no tool named ${tool} in this session. ` + (offered.length ? `Tools available: ${offered.join(', ')}.` : 'No tools are available.')
}
