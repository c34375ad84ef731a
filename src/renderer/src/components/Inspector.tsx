// Inspector side panel: the selected session's live event log (every stream), filters by stream and
// run, raw JSON per row with copy, and a per-run timeline. Events come from a bounded ring kept
// outside React; this panel only renders (virtualized) while open.
import { useVirtualizer } from '@tanstack/react-virtual'
import { memo, useMemo, useRef, useState } from 'react'
import { useAppStore, useController } from '../app-context'
import { clockTime, formatDuration, formatInt } from '../lib/format'
import { timelineToolTime } from './timeline-tool-time'
import { EVENTS_PER_SESSION, type LoggedEvent } from '../state/event-log'
import { endedAsConversation, isErrorEvent, runFooterOf, timelines, type RunTimeline } from '../state/run-timelines'
import { eventSummary as summary } from '../state/event-summary'
import { stoppedText } from '../state/stopped-text'
import { inspectorCovers } from '../layout'
import { CopyButton } from './CopyButton'
import { IconChevron, IconX } from './icons'

const STREAMS = ['lifecycle', 'lane', 'assistant', 'thinking', 'reasoning', 'tool', 'compaction', 'chat', 'approval', 'queue', 'session', 'error', 'block'] as const
const PREVIEW_JSON_CHARS = 20_000

/** The tool call a tool event is about (its card in the conversation), if any. */
function toolCallOf(e: LoggedEvent): { id: string; name: string } | undefined {
  if (e.event.event !== 'agent' || e.stream !== 'tool') return undefined
  const d = e.event.payload.data as { toolCallId?: unknown; name?: unknown }
  return typeof d.toolCallId === 'string' && d.toolCallId ? { id: d.toolCallId, name: String(d.name ?? 'tool') } : undefined
}

/** "Show in conversation": the call's card scrolled to, opened (its group too), outlined and focused. */
function ShowInConversation({ sessionKey, call }: { sessionKey: string; call: { id: string; name: string } }) {
  const controller = useController()
  const [missing, setMissing] = useState(false)
  const show = () => {
    // in what the conversation shows: a detached window, else the live transcript
    const runs = controller.stores.runs.getState()
    const shown = runs.detached?.[sessionKey]?.transcript ?? runs.transcripts[sessionKey]
    const item = shown?.items.find((it) => it.kind === 'tool' && it.toolCallId === call.id)
    setMissing(!item)
    if (!item) return
    // a drawer over the conversation would hide the card it shows
    if (inspectorCovers()) controller.setInspectorOpen(false)
    controller.stores.ui.setState({ reveal: { sessionKey, key: item.key, seq: performance.now() } })
  }
  // its name starts with what it shows (axe label-content-name-mismatch: speech input says the visible words)
  return (
    <>
      <button type="button" className="btn btn-link btn-xs ev-link" aria-label={`Show in conversation: ${call.name} call`} onClick={show}>
        Show in conversation
      </button>
      {missing && (
        <span role="status" className="muted small ev-link-note">
          Not in the loaded part of the conversation
        </span>
      )}
    </>
  )
}

const Row = memo(function Row({ e, open, onToggle, sessionKey }: { e: LoggedEvent; open: boolean; onToggle: () => void; sessionKey: string }) {
  const json = open ? JSON.stringify(e.event, null, 2) : ''
  const seq = e.event.event === 'agent' ? e.event.payload.seq : e.event.event === 'chat' ? e.event.payload.seq : undefined
  const call = toolCallOf(e)
  return (
    <div className={`ev-row ${open ? 'open' : ''}${isErrorEvent(e) ? ' ev-error' : ''}`}>
      <button type="button" className="ev-head" aria-expanded={open} onClick={onToggle}>
        <IconChevron className="chev" />
        <span className="ev-time">{clockTime(e.receivedAt)}</span>
        <span className={`ev-stream s-${e.stream}`}>{e.event.event === 'chat' ? 'chat' : e.stream}</span>
        {seq !== undefined && <span className="ev-seq">#{seq}</span>}
        <span className="ev-summary">{summary(e)}</span>
      </button>
      {call && <ShowInConversation sessionKey={sessionKey} call={call} />}
      {open && (
        <div className="ev-body">
          <div className="ev-body-head">
            <span>{e.runId ? `run ${e.runId}` : e.event.event}</span>
            <CopyButton text={() => JSON.stringify(e.event, null, 2)} label="Copy JSON" />
          </div>
          <pre>{json.length > PREVIEW_JSON_CHARS ? `${json.slice(0, PREVIEW_JSON_CHARS)}\n… (${formatInt(json.length)} chars; use Copy JSON)` : json}</pre>
        </div>
      )}
    </div>
  )
})

/** `errorsOnly`: the "Errors only" filter — tool calls that did not fail are left out (counted), the run's frame stays. */
function Timeline({ t, errorsOnly }: { t: RunTimeline; errorsOnly: boolean }) {
  const base = t.acceptedAt ?? t.startedAt
  const tools = errorsOnly ? t.tools.filter((tool) => tool.isError) : t.tools
  const left = t.tools.length - tools.length
  const rel = (ts?: number) => (ts !== undefined && base !== undefined ? `+${formatDuration(ts - base) || '0 ms'}` : '—')
  // in the order things happened (a run that calls a tool first has its first text delta after it);
  // what has not happened yet (no delta so far) comes last, before the end
  const steps: Array<{ key: string; label: string; at?: number; className?: string; dot?: string }> = [
    ...(t.acceptedAt !== undefined ? [{ key: 'accepted', label: 'Accepted', at: t.acceptedAt }] : []),
    { key: 'started', label: 'Started', at: t.startedAt },
    { key: 'first-delta', label: 'First delta', at: t.firstDeltaAt },
    ...tools.map((tool) => ({
      key: `tool-${tool.toolCallId}`,
      // the call's own time, an approval's wait apart (as its tool card says)
      label: `Tool ${tool.name} (${timelineToolTime(tool)})`,
      at: tool.startedAt,
      className: tool.isError ? 'tl-error' : '',
      dot: 'tl-tool',
    })),
  ]
  // a window that joined mid-run may hold none of the run's first events (the runtime replays only its recent
  // ones): accepted and started, when not known, still come first — the others, not happened yet, last
  const first = new Set(['accepted', 'started'])
  const order = (s: { key: string; at?: number }) => (s.at !== undefined ? s.at : first.has(s.key) ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY)
  steps.sort((a, b) => order(a) - order(b)) // stable: ties keep the order above
  return (
    <ol className="timeline" aria-label={`Timeline of run ${t.runId}`}>
      {steps.map((s) => (
        <li key={s.key} className={s.className}>
          <span className={`tl-dot${s.dot ? ` ${s.dot}` : ''}`} />
          <span>{s.label}</span>
          <span className="tl-time">{rel(s.at)}</span>
        </li>
      ))}
      {left > 0 && (
        <li className="tl-hidden">
          <span className="tl-dot" />
          <span>
            {left} tool {left === 1 ? 'call' : 'calls'} without errors hidden
          </span>
          <span className="tl-time" />
        </li>
      )}
      <li className={t.outcome === 'error' ? 'tl-error' : ''}>
        <span className="tl-dot tl-end" />
        <span>{t.interrupted ? 'Interrupted' : t.outcome === 'error' ? 'Failed' : t.outcome === 'stopped' ? stoppedText(t) : t.outcome === 'done' ? 'Ended' : 'In progress'}</span>
        <span className="tl-time">{rel(t.endedAt)}</span>
      </li>
    </ol>
  )
}

export function Inspector({ sessionKey }: { sessionKey: string }) {
  const controller = useController()
  const version = useAppStore('inspector', (s) => s.version)
  const hidden = useAppStore('inspector', (s) => s.hiddenStreams)
  const pickedRun = useAppStore('inspector', (s) => s.runFilter)
  const errorsOnly = useAppStore('inspector', (s) => !!s.errorsOnly)
  const expanded = useAppStore('ui', (s) => s.expanded)
  const { stores } = controller

  // The ring lives outside React; `version` is its change signal (bumped only while this panel is open).
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const all = useMemo(() => controller.log.list(sessionKey), [controller, sessionKey, version])
  const runIds = useMemo(() => [...new Set(all.map((e) => e.runId).filter(Boolean) as string[])].reverse(), [all])
  // the run picked in another session filters nothing here (its select would read "All runs" over an empty list)
  const runFilter = pickedRun && runIds.includes(pickedRun) ? pickedRun : undefined
  const rows = useMemo(
    () =>
      all
        .filter((e) => (errorsOnly ? isErrorEvent(e) : !hidden.includes(e.stream)) && (!runFilter || e.runId === runFilter))
        .reverse(),
    [all, hidden, runFilter, errorsOnly],
  )
  const logged = useMemo(() => {
    const list = timelines(all, controller.acceptedTimes())
    return (runFilter ? list.find((t) => t.runId === runFilter) : list[list.length - 1]) ?? undefined
  }, [all, runFilter, controller])
  // how the conversation says the run ended, for a run whose end event this window never got
  const footer = useAppStore('runs', (s) => runFooterOf(s.transcripts[sessionKey]?.items, logged?.runId))
  const timeline = useMemo(() => logged && endedAsConversation(logged, footer), [logged, footer])

  const scrollRef = useRef<HTMLDivElement>(null)
  const rowsRef = useRef(rows)
  rowsRef.current = rows
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 30,
    getItemKey: (i) => rowsRef.current[i]?.id ?? i,
    overscan: 10,
    initialRect: { width: 400, height: 600 },
  })

  const toggleStream = (s: string) =>
    stores.inspector.setState((st) => ({
      hiddenStreams: st.hiddenStreams.includes(s) ? st.hiddenStreams.filter((x) => x !== s) : [...st.hiddenStreams, s],
    }))

  return (
    <aside aria-label="Inspector" className="inspector">
      <header className="inspector-head">
        <h2>Inspector</h2>
        <span className="muted small">
          {formatInt(all.length)} / {formatInt(EVENTS_PER_SESSION)} events
        </span>
        <button type="button" className="btn btn-ghost btn-icon" aria-label="Close inspector" onClick={() => controller.setInspectorOpen(false)}>
          <IconX />
        </button>
      </header>
      <div className="inspector-filters">
        <button
          type="button"
          className="chip chip-errors"
          aria-pressed={errorsOnly}
          title="Only the events that report a failure, in any stream"
          onClick={() => stores.inspector.setState({ errorsOnly: !errorsOnly })}
        >
          Errors only
        </button>
        <div className="chips" role="group" aria-label="Filter by stream">
          {STREAMS.map((s) => (
            <button
              key={s}
              type="button"
              className={`chip s-${s}`}
              aria-pressed={!hidden.includes(s)}
              disabled={errorsOnly}
              onClick={() => toggleStream(s)}
            >
              {s}
            </button>
          ))}
        </div>
        <label className="field-inline">
          <span>Run</span>
          <select
            aria-label="Filter by run"
            value={runFilter ?? ''}
            onChange={(e) => stores.inspector.setState({ runFilter: e.target.value || undefined })}
          >
            <option value="">All runs</option>
            {runIds.map((id) => (
              <option key={id} value={id}>
                {id.length > 18 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id}
              </option>
            ))}
          </select>
        </label>
      </div>
      {timeline && (
        <section className="inspector-timeline" aria-label="Run timeline">
          <h3>
            Run timeline <span className="muted small mono">{timeline.runId.slice(0, 8)}</span>
          </h3>
          <Timeline t={timeline} errorsOnly={errorsOnly} />
        </section>
      )}
      <div ref={scrollRef} className="inspector-log" role="list" aria-label="Events">
        {all.length > 0 && rows.length === 0 && <p className="muted small pad">No events match the filters.</p>}
        {all.length === 0 && <p className="muted small pad">No events yet. Send a message to see the run&apos;s events.</p>}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const e = rows[v.index]
            const key = `ev:${e.id}`
            return (
              <div
                key={v.key}
                role="listitem"
                data-index={v.index}
                ref={virtualizer.measureElement}
                className="row"
                style={{ top: v.start }}
              >
                <Row e={e} open={!!expanded[key]} onToggle={() => controller.toggleExpanded(key)} sessionKey={sessionKey} />
              </div>
            )
          })}
        </div>
      </div>
    </aside>
  )
}
