// What a write or an edit did to a file, as a person reads it: an edit as a red/green line diff of old → new
// text, a write as the file's text with line numbers (not the escaped JSON of its arguments). Each line is
// prefixed for screen readers ("removed", "added"), the visual +/− and numbers are hidden from them. Bounded:
// a preview of lines, "Show all" up to a cap, and the diff itself has a work bound (`src/shared/line-diff.ts`).
// A chunk of its own (lazy-views.ts), loaded when a card is opened or while idle: what first paint loads stays
// under 500 kB (test/renderer-bundle.test.ts).
import { useMemo, useState } from 'react'
import { diffText, lineDiff, splitLines, type DiffLine } from '../../../shared/line-diff'
import { formatBytes, formatInt } from '../lib/format'
import { CopyButton } from './CopyButton'
import { HiddenCharsWarning, revealHidden } from './HiddenChars'
import type { FileChange } from './file-change'

/** Lines shown before "Show all", and the cap after it (keeps one card from freezing the window). */
export const PREVIEW_LINES = 200
export const MAX_SHOWN_LINES = 5_000

/** The first line holding the query (case-insensitive), or -1. */
function firstLineWith(lines: string[], query: string | undefined): number {
  if (!query) return -1
  const q = query.toLowerCase()
  return lines.findIndex((l) => l.toLowerCase().includes(q))
}

function useLineLimit(total: number, matchAt: number) {
  const [all, setAll] = useState(false)
  const limit = all || matchAt >= PREVIEW_LINES ? MAX_SHOWN_LINES : PREVIEW_LINES
  // `all`: nothing more to open (asked for, or a find match past the preview opened it)
  return { limit, all: limit === MAX_SHOWN_LINES, showAll: () => setAll(true), cut: total > limit }
}

function MoreButton({ total, all, onClick }: { total: number; all: boolean; onClick: () => void }) {
  return (
    <button type="button" className="btn btn-link btn-xs" onClick={onClick} disabled={all}>
      {all ? `Showing the first ${formatInt(MAX_SHOWN_LINES)} lines` : `Show all (${formatInt(total)} lines)`}
    </button>
  )
}

const SR_PREFIX: Record<DiffLine['kind'], string> = {
  removed: 'removed: ',
  added: 'added: ',
  same: 'unchanged: ',
}
const MARK: Record<DiffLine['kind'], string> = { removed: '−', added: '+', same: ' ' }

export function EditDiff({ oldText, newText, find }: { oldText: string; newText: string; find?: string }) {
  const lines = useMemo(() => lineDiff(oldText, newText), [oldText, newText])
  const removed = lines.filter((l) => l.kind === 'removed').length
  const added = lines.length - removed - lines.filter((l) => l.kind === 'same').length
  const { limit, all, showAll, cut } = useLineLimit(
    lines.length,
    firstLineWith(
      lines.map((l) => l.text),
      find,
    ),
  )
  return (
    <section className="tool-section">
      <div className="tool-section-head">
        <h3>Change</h3>
        <span className="tool-section-info">
          −{formatInt(removed)} +{formatInt(added)} lines
        </span>
        <CopyButton text={diffText(lines)} label="Copy change" />
      </div>
      <div
        className="tool-pre tool-lines tool-diff"
        role="list"
        aria-label={`Change: ${removed} lines removed, ${added} added`}
      >
        {lines.slice(0, limit).map((l, i) => (
          <div key={i} role="listitem" className={`tool-line tool-line-${l.kind}`}>
            <span className="tool-line-mark" aria-hidden="true">
              {MARK[l.kind]}
            </span>
            <span className="sr-only">{SR_PREFIX[l.kind]}</span>
            <span className="tool-line-text">{l.text ? revealHidden(l.text) : ' '}</span>
          </div>
        ))}
      </div>
      <HiddenCharsWarning text={oldText + '\n' + newText} what="edit" />
      {cut && <MoreButton total={lines.length} all={all} onClick={showAll} />}
    </section>
  )
}

export function WrittenFile({ content, find }: { content: string; find?: string }) {
  const lines = useMemo(() => splitLines(content), [content])
  const bytes = useMemo(() => new TextEncoder().encode(content).length, [content])
  const { limit, all, showAll, cut } = useLineLimit(lines.length, firstLineWith(lines, find))
  return (
    <section className="tool-section">
      <div className="tool-section-head">
        <h3>Content</h3>
        <span className="tool-section-info">
          {formatInt(lines.length)} {lines.length === 1 ? 'line' : 'lines'} · {formatBytes(bytes)}
        </span>
        <CopyButton text={content} label="Copy content" />
      </div>
      <div className="tool-pre tool-lines" role="list" aria-label={`File content, ${lines.length} lines`}>
        {lines.slice(0, limit).map((l, i) => (
          <div key={i} role="listitem" className="tool-line">
            <span className="tool-line-no" aria-hidden="true">
              {i + 1}
            </span>
            <span className="tool-line-text">{l ? revealHidden(l) : ' '}</span>
          </div>
        ))}
      </div>
      <HiddenCharsWarning text={content} what="file content" />
      {cut && <MoreButton total={lines.length} all={all} onClick={showAll} />}
    </section>
  )
}

/** The view of a call's file change, as the lazy chunk's one export (ToolCard renders it when opened). */
export function FileChangeView({ change, find }: { change: FileChange; find?: string }) {
  return change.kind === 'edit' ? (
    <EditDiff oldText={change.oldText} newText={change.newText} find={find} />
  ) : (
    <WrittenFile content={change.content} find={find} />
  )
}
