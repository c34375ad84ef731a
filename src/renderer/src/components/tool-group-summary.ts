// What a collapsed tool group's row says: how many calls, how many failed or still run, the tools used.
import type { ToolItem } from '../state/types'

/** Blocked on the user's answer, not running (what its card says too): told apart in the row. */
export const waitsForApproval = (t: ToolItem) => t.status === 'running' && !!t.approval && !t.approval.decision

/** How the row's list names a call's state. */
export const attentionLabel = (t: ToolItem) => (t.status === 'failed' ? 'Failed' : waitsForApproval(t) ? 'Waiting for approval' : 'Running')

/** The calls a collapsed group keeps reachable: failed ones and those still running (or waiting), in order. */
export function attentionOf(tools: readonly ToolItem[]): ToolItem[] {
  return tools.filter((t) => t.status === 'failed' || t.status === 'running')
}

/** The row's list's name, for what it holds: "Failed calls", "Running calls and calls waiting for approval", … */
export function attentionListLabel(tools: readonly ToolItem[]): string {
  const kinds = new Set(tools.map(attentionLabel))
  const states = [kinds.has('Failed') && 'failed', kinds.has('Running') && 'running'].filter(Boolean).join(' and ')
  const named = states ? `${states[0].toUpperCase()}${states.slice(1)} calls` : ''
  if (!kinds.has('Waiting for approval')) return named
  return named ? `${named} and calls waiting for approval` : 'Calls waiting for approval'
}

/** "12 tool calls · 2 failed · 1 running · 1 waiting for approval" */
export function countsText(tools: readonly ToolItem[]): string {
  const n = (s: ToolItem['status']) => tools.filter((t) => t.status === s && !waitsForApproval(t)).length
  const waiting = tools.filter(waitsForApproval).length
  const parts = [`${tools.length} tool calls`]
  for (const [s, label] of [['failed', 'failed'], ['interrupted', 'interrupted'], ['running', 'running']] as const) if (n(s)) parts.push(`${n(s)} ${label}`)
  if (waiting) parts.push(`${waiting} waiting for approval`)
  return parts.join(' · ')
}

/** "exec ×8, read ×3, write" — most used first, at most `max` names then "+N more". */
export function namesText(tools: readonly ToolItem[], max = 4): string {
  const counts = new Map<string, number>()
  for (const t of tools) counts.set(t.name, (counts.get(t.name) ?? 0) + 1)
  const sorted = [...counts].sort((a, b) => b[1] - a[1])
  const shown = sorted.slice(0, max).map(([name, c]) => (c > 1 ? `${name} ×${c}` : name))
  if (sorted.length > max) shown.push(`+${sorted.length - max} more`)
  return shown.join(', ')
}
