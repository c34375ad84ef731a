// What the Inspector's run timeline says a tool call took: the tool card's rule (tool-timing.ts), so a command
// approved after 30 s reads "100 ms · waited 30.0 s for approval" there too, not "30.1 s".
import type { TimelineTool } from '../state/run-timelines'
import type { ToolItem } from '../state/types'
import { toolTiming } from './tool-timing'

/** The duration in a timeline step's label ("running" while it has no result; a waiting approval says so). */
export function timelineToolTime(tool: TimelineTool, now = Date.now()): string {
  if (tool.endedAt === undefined) return tool.approval && !tool.approval.decision ? 'waiting for approval' : 'running'
  // toolTiming reads a tool card's fields: the timeline has the same facts from the same events
  const item: ToolItem = {
    kind: 'tool',
    key: tool.toolCallId,
    ts: tool.startedAt,
    toolCallId: tool.toolCallId,
    name: tool.name,
    args: undefined,
    status: tool.isError ? 'failed' : 'done',
    startedAt: tool.startedAt,
    endedAt: tool.endedAt,
    approval: tool.approval,
    result: tool.details !== undefined ? { details: tool.details } : undefined,
  }
  const t = toolTiming(item, now)
  return [t.run, t.waited && `waited ${t.waited} for approval`].filter(Boolean).join(' · ') || 'not run'
}
