// Many tool calls in a row (an agent's 30 reads) show as one group row that opens to the cards. Which items
// the conversation's rows are: an item each, and a group's row in place of a run of consecutive tool calls —
// followed by the calls only when the group is open. Pure, so the virtualized list and tests share it.
import type { Item, ToolItem } from './types'

/** A run of at least this many consecutive tool calls of one run is a group. */
export const GROUP_MIN = 4

export interface ToolGroup {
  /** `tools:` + its first call's key (stable while calls are added to it): its open state in the ui store */
  key: string
  tools: ToolItem[]
}

/** `group` on a call's row: it is inside that (open) group; a group's own row has no item. */
export type Row = { key: string; item?: Item; group?: ToolGroup }

/** An answered approval whose tool card carries the answer is not drawn: it does not end a run of calls. */
const silent = (it: Item) => it.kind === 'approval' && !!it.decision && !!it.onTool

export function toolRows(items: readonly Item[], isOpen: (groupKey: string) => boolean, min = GROUP_MIN): Row[] {
  const rows: Row[] = []
  for (let i = 0; i < items.length; ) {
    const it = items[i]
    let end = i
    const tools: ToolItem[] = []
    for (let j = i; j < items.length && (items[j].kind === 'tool' || silent(items[j])) && items[j].runId === it.runId; j++) {
      const t = items[j]
      if (t.kind === 'tool') end = tools.push(t) && j + 1
    }
    if (it.kind !== 'tool' || tools.length < min) {
      rows.push({ key: it.key, item: it })
      i++
      continue
    }
    const group: ToolGroup = { key: `tools:${it.key}`, tools }
    rows.push({ key: group.key, group })
    if (isOpen(group.key)) for (; i < end; i++) rows.push({ key: items[i].key, item: items[i], group })
    i = end
  }
  return rows
}

/** The key of the group holding an item (open or closed), if any. */
export const groupOf = (rows: readonly Row[], key: string) => rows.find((r) => !r.item && r.group!.tools.some((t) => t.key === key))?.key
