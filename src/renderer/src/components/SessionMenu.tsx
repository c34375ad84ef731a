// A session row's "…" menu (Sidebar.tsx): a chunk of its own, preloaded while idle (warm-up.tsx), so what first
// paint loads stays under 500 kB (test/renderer-bundle.test.ts). ↑/↓/Home/End move, Escape closes back to "…".
import { useEffect, useRef } from 'react'
import type { SessionRow } from '../../../shared/methods'
import { isProtectedSessionKey } from '../../../shared/session-key'
import { useController } from '../app-context'
import { downloadText } from '../lib/download'

/** Where work lands by default: the runtime refuses to archive or delete an agent's main (or the global) session. */
const archivable = (key: string) => !isProtectedSessionKey(key)

export interface SessionMenuProps {
  row: SessionRow
  title: string
  /** closes the menu (focus goes where the action takes it) */
  onClose: () => void
  /** closes the menu with focus back on "…" (an action that leaves the row where it is) */
  onCloseToButton: () => void
  onRename: () => void
  onConfirm: (kind: 'delete' | 'reset') => void
}

export function SessionMenu({ row, title, onClose, onCloseToButton, onRename, onConfirm }: SessionMenuProps) {
  const controller = useController()
  const ref = useRef<HTMLDivElement>(null)
  // opened: its first item has the focus (here, not in the row: the row's effect ran before this chunk was in)
  useEffect(() => ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus(), [])
  return (
    <div
      ref={ref}
      role="menu"
      className="menu"
      aria-label={`Actions for ${title}`}
      onKeyDown={(e) => {
        const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])]
        const i = items.indexOf(document.activeElement as HTMLElement)
        if (e.key === 'Escape') onCloseToButton()
        else if (e.key === 'ArrowDown') items[(i + 1) % items.length]?.focus()
        else if (e.key === 'ArrowUp') items[(i - 1 + items.length) % items.length]?.focus()
        else if (e.key === 'Home') items[0]?.focus()
        else if (e.key === 'End') items[items.length - 1]?.focus()
        else return
        e.preventDefault()
      }}
      // Tab or Shift+Tab takes focus out: the menu closes (it would stay open behind the focus, and
      // Escape on "…" would then close the sidebar instead). No relatedTarget (a click where buttons
      // take no focus, as in Safari): left to the outside-mousedown handler, or the click is lost.
      onBlur={(e) => {
        if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget as Node)) onClose()
      }}
    >
      <button type="button" role="menuitem" onClick={onRename}>
        Rename
      </button>
      {!row.archived && (
        <button
          type="button"
          role="menuitem"
          onClick={() => (onCloseToButton(), void controller.pinSession(row.key, !row.pinned))}
        >
          {row.pinned ? 'Unpin' : 'Pin'}
        </button>
      )}
      {archivable(row.key) && (
        <button
          type="button"
          role="menuitem"
          onClick={() => (onCloseToButton(), void controller.archiveSession(row.key, !row.archived))}
        >
          {row.archived ? 'Unarchive' : 'Archive'}
        </button>
      )}
      {!row.archived && (
        <button
          type="button"
          role="menuitem"
          onClick={() => (onCloseToButton(), void controller.compactSession(row.key))}
        >
          Compact
        </button>
      )}
      {!row.archived && (
        <button
          type="button"
          role="menuitem"
          onClick={() => (onClose(), void controller.forkSession(row.key))}
        >
          Fork
        </button>
      )}
      <button
        type="button"
        role="menuitem"
        onClick={() => (
          onCloseToButton(),
          void controller.exportMarkdown(row.key).then((r) => r && downloadText(r.filename, r.markdown))
        )}
      >
        Export as Markdown
      </button>
      {/* closed to "…" first: the confirmation gives focus back to what had it when it opened */}
      <button type="button" role="menuitem" onClick={() => (onCloseToButton(), onConfirm('reset'))}>
        Reset
      </button>
      {/* an agent's main session cannot be deleted (Reset clears it) */}
      {archivable(row.key) && (
        <button
          type="button"
          role="menuitem"
          className="danger"
          onClick={() => (onCloseToButton(), onConfirm('delete'))}
        >
          Delete
        </button>
      )}
    </div>
  )
}
