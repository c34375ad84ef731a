// A run of consecutive tool calls as one row (state/tool-groups.ts): a disclosure button with the counts and
// the tools used, and — open or not — the failed and running calls as links that open their card (the group
// with it), so they stay one click away in a 30-call reply. Its own chunk (lazy-views.ts): first paint is at budget.
import { useController } from '../app-context'
import { argsSummary } from '../../../shared/tool-display'
import type { AppStores } from '../state/stores'
import type { ToolGroup as Group } from '../state/tool-groups'
import { revealHidden } from './HiddenChars'
import { IconChevron, IconTool } from './icons'
import { attentionLabel, attentionListLabel, attentionOf, countsText, namesText } from './tool-group-summary'

/** Listed by name at most; the rest are counted (the first failed one is always "Jump to failed"). */
const MAX_LISTED = 5

/** The conversation opens the card (its group too), scrolls to it, outlines and focuses it (Conversation.tsx). */
function revealCard(stores: AppStores, sessionKey: string, key: string) {
  stores.ui.setState({ reveal: { sessionKey, key, seq: performance.now() } })
}

export function ToolGroupRow({ group, open, sessionKey }: { group: Group; open: boolean; sessionKey: string }) {
  const controller = useController()
  const attention = attentionOf(group.tools)
  const failed = attention.find((t) => t.status === 'failed')
  const reveal = (key: string) => revealCard(controller.stores, sessionKey, key)
  const counts = countsText(group.tools)
  return (
    <div role="group" aria-label={counts} className={`tool-group${failed ? ' tool-group-failed' : ''}`}>
      <button type="button" className="tool-group-head" aria-expanded={open} onClick={() => controller.toggleExpanded(group.key)}>
        <IconChevron className="chev" />
        <IconTool className="tool-icon" />
        <span className="tool-group-counts">{counts}</span>
        <span className="tool-group-names">{namesText(group.tools)}</span>
      </button>
      {attention.length > 0 && (
        <div className="tool-group-attention">
          {failed && (
            <button type="button" className="btn btn-xs" onClick={() => reveal(failed.key)}>
              Jump to failed
            </button>
          )}
          <ul aria-label={attentionListLabel(attention)}>
            {attention.slice(0, MAX_LISTED).map((t) => (
              <li key={t.key}>
                <button type="button" className={`btn btn-link btn-xs tool-group-link tool-${t.status}`} onClick={() => reveal(t.key)}>
                  {attentionLabel(t)}: {t.name} {revealHidden(argsSummary(t.args))}
                </button>
              </li>
            ))}
            {attention.length > MAX_LISTED && <li className="muted small">and {attention.length - MAX_LISTED} more</li>}
          </ul>
        </div>
      )}
    </div>
  )
}
