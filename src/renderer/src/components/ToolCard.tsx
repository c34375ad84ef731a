// A tool call, inline where it ran: name, one-line argument summary, live status and duration; collapsed, a
// failed call's first error line or a running call's last output line; expandable arguments and result (pretty
// JSON, previewed with "Show all"), each copyable — a write's or an edit's text as the file's lines or a diff.
import { memo, useEffect, useState } from 'react'
import { useAppStore, useController } from '../app-context'
import { formatInt } from '../lib/format'
import { argsSummary, firstLine, lastLine, MAX_SHOWN_CHARS, notRunFromText, prettyJson, PREVIEW_CHARS, resultText, truncate, type NotRun } from '../../../shared/tool-display'
import { useThrottled } from '../lib/use-throttled'
import type { ToolItem } from '../state/types'
import { CopyButton } from './CopyButton'
import { HiddenCharsWarning, revealHidden } from './HiddenChars'
import { IconChevron, IconShield, IconTool } from './icons'
import { LazyBoundary } from '../lib/lazy-view'
import { FileChangeLazyView } from '../lazy-views'
import { fileChangeOf } from './file-change'
import { toolTiming } from './tool-timing'

const STATUS_LABEL: Record<ToolItem['status'], string> = {
  running: 'Running…',
  done: 'Done',
  failed: 'Failed',
  interrupted: 'Interrupted',
  // history is paged: the result is in messages not loaded yet
  unknown: 'Result not loaded',
}

/** Why a call failed without running, from the approval's answer or else the runtime's result text (tools/exec.ts). */
const NOT_RUN_LABEL: Record<NotRun, string> = { denied: 'Denied', 'approval-timeout': 'Approval timed out', stopped: 'Stopped' }

export function notRunReason(item: ToolItem): NotRun | undefined {
  if (item.status !== 'failed') return undefined
  const a = item.approval
  if (a?.decision === 'deny') return a.resolvedBy === 'timeout' ? 'approval-timeout' : a.resolvedBy === 'abort' ? 'stopped' : 'denied'
  return item.result !== undefined ? notRunFromText(resultText(item.result)) : undefined
}

/** The line a call that asked for approval keeps once answered: who decided what. */
function approvalRecord(item: ToolItem, reason: NotRun | undefined): string | undefined {
  const a = item.approval
  // seen live, else what the command's result kept (tools/exec.ts `details.approval`: also after a reload)
  const ran = a?.decision ?? (item.result as { details?: { approval?: unknown } } | undefined)?.details?.approval
  if (ran === 'allow-once') return 'Approved once'
  if (ran === 'allow-always') return 'Always allowed (this command, in this session)'
  if (ran === 'allowed-before') return 'Allowed earlier in this session (always)'
  if (reason === 'denied') return 'Denied — the command was not run'
  if (reason === 'approval-timeout') return 'Nobody answered the approval in time — the command was not run'
  if (a?.decision === 'deny' && reason === 'stopped') return 'The run was stopped while the approval waited'
  return undefined
}

/** How often at most a collapsed running card's last output line changes. */
const LIVE_LINE_MS = 250

/** The arguments without the texts a file view shows (write's content, edit's oldText/newText). */
function otherArgs(args: unknown): unknown {
  const { content: _c, oldText: _o, newText: _n, ...rest } = args as Record<string, unknown>
  return rest
}

function useNow(active: boolean, everyMs = 500) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!active) return
    const t = setInterval(() => setNow(Date.now()), everyMs)
    return () => clearInterval(t)
  }, [active, everyMs])
  return now
}

/**
 * `reveal`: hidden characters shown as tokens, with a warning line (arguments: paths and commands the tool used).
 * `find`: the find bar's query, when this card holds its match: a match past the preview shows the whole text.
 */
function Section({ title, text, reveal = false, find }: { title: string; text: string; reveal?: boolean; find?: string }) {
  const [all, setAll] = useState(false)
  const past = !!find && matchPastPreview(text, find)
  const shown = truncate(text, all || past ? MAX_SHOWN_CHARS : PREVIEW_CHARS)
  return (
    <section className="tool-section">
      <div className="tool-section-head">
        <h3>{title}</h3>
        <CopyButton text={text} label={`Copy ${title.toLowerCase()}`} />
      </div>
      <pre className="tool-pre">{reveal ? revealHidden(shown.text) : shown.text}</pre>
      {reveal && <HiddenCharsWarning text={text} what={title === 'Arguments' ? 'call’s arguments' : title.toLowerCase()} />}
      {shown.truncated && (
        <button type="button" className="btn btn-link btn-xs" onClick={() => setAll(true)} disabled={all}>
          {/* a cut output (output-cut.ts's marker, naming the real size) is not "all": say it is what was kept */}
          {all ? `Showing the first ${formatInt(MAX_SHOWN_CHARS)} characters` : `Show all${/^\[output truncated: /m.test(text) ? ' kept output' : ''} (${formatInt(text.length)} characters)`}
        </button>
      )}
    </section>
  )
}

/** The query occurs in `text`, but not within its preview (so "Show all" would be needed to see it). */
export function matchPastPreview(text: string, query: string): boolean {
  const lower = text.toLowerCase()
  const needle = query.toLowerCase()
  return !!needle && !lower.slice(0, PREVIEW_CHARS).includes(needle) && lower.includes(needle)
}

/** `found`: the find bar's (or a search hit's) query when this card holds the match — the card opens to show it. */
export const ToolCard = memo(function ToolCard({ item, found }: { item: ToolItem; found?: string }) {
  const controller = useController()
  const open = useAppStore('ui', (s) => !!s.expanded[item.key])
  // a match inside the card: open it, the section with the match shown whole (a search hit's stays open; one
  // the find bar opened folds back when find moves on, unless the user took it over: Conversation.tsx)
  const landed = found !== undefined
  useEffect(() => {
    if (landed && !open) controller.openForMatch(item.key)
    // (only when a match lands here: closing the card afterwards is the user's)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [landed, item.key, controller])
  const running = item.status === 'running'
  // the call is blocked on the user, not running: no spinner, and the clock shows how long it has waited
  const waiting = running && !!item.approval && !item.approval.decision
  const reason = notRunReason(item)
  const record = approvalRecord(item, reason)
  const tone = waiting ? 'approval' : reason === 'denied' ? 'denied' : reason ? 'not-run' : item.status
  const now = useNow(running)
  const time = toolTiming(item, now)
  const duration = [time.run, time.waited && `waited ${time.waited} for approval`].filter(Boolean).join(' · ')
  const summary = argsSummary(item.args)
  const result = item.result !== undefined ? resultText(item.result) : item.partial !== undefined ? resultText(item.partial) : ''
  const change = open ? fileChangeOf(item.name, item.args) : undefined
  // collapsed: why it failed (first line of the error), or what a running call printed last — partial output
  // can arrive per chunk, the line follows it a few times a second at most
  const failedLine = !open && item.status === 'failed' && !reason && item.result !== undefined ? firstLine(resultText(item.result)) : ''
  const partial = useThrottled(running && !waiting && !open ? item.partial : undefined, LIVE_LINE_MS)
  const liveLine = running && !waiting && !open && partial !== undefined ? lastLine(resultText(partial)) : ''
  return (
    <div role="group" aria-label={`Tool ${item.name}`} className={`tool-card tool-${tone}`}>
      {/* the header a heading (the disclosure pattern's): its sections (h3) sit under it, after the title's h1 */}
      <h2 className="tool-title">
        <button type="button" className="tool-head" aria-expanded={open} onClick={() => controller.toggleExpanded(item.key)}>
          <IconChevron className="chev" />
          <IconTool className="tool-icon" />
          <span className="tool-name">{item.name}</span>
          {summary && <span className="tool-summary">{revealHidden(summary)}</span>}
          <span className="tool-right">
            <span className={`badge badge-${tone}`}>
              {running && !waiting && <span className="spinner" aria-hidden="true" />}
              {waiting ? 'Waiting for approval' : reason ? NOT_RUN_LABEL[reason] : STATUS_LABEL[item.status]}
            </span>
            {duration && <span className="tool-duration">{duration}</span>}
          </span>
        </button>
      </h2>
      {record && (
        <p className={`tool-approval-note ${reason === 'denied' ? 'denied' : ''}`}>
          <IconShield width={12} height={12} aria-hidden="true" />
          {record}
        </p>
      )}
      {failedLine && (
        <p className="tool-line-peek tool-error-peek">
          <span className="sr-only">Error: </span>
          {revealHidden(failedLine)}
        </p>
      )}
      {liveLine && (
        <p className="tool-line-peek">
          <span className="sr-only">Latest output: </span>
          {revealHidden(liveLine)}
        </p>
      )}
      {open && (
        <div className="tool-body">
          {change && (
            <LazyBoundary name="File change">
              <FileChangeLazyView change={change} find={found} />
            </LazyBoundary>
          )}
          {/* the file's text is shown above: the rest (path, flags) stays as arguments */}
          <Section title="Arguments" text={prettyJson(change ? otherArgs(item.args) : item.args)} reveal find={found} />
          {(item.result !== undefined || item.partial !== undefined) && (
            <Section title={item.result !== undefined ? (item.status === 'failed' && !reason ? 'Error' : 'Result') : 'Output so far'} text={result} find={found} />
          )}
          {item.meta && <p className="tool-meta">{item.meta}</p>}
        </div>
      )}
    </div>
  )
})
