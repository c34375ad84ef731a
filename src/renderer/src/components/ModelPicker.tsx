// The session's model in the conversation header, as a button that opens a listbox of the configured models,
// grouped by provider, the default marked, "Use default model" first (sessions.patch `model`, null clears the
// choice). ↑/↓/Home/End move, Enter or Space chooses, Esc or Tab closes; the listbox has the focus and announces
// the active option through aria-activedescendant. A model chosen for the session whose provider is gone is
// listed as unavailable, so the header says why its sends fail.
import { useEffect, useId, useMemo, useRef, useState } from 'react'
import type { ModelChoice, SessionRow } from '../../../shared/methods'
import { useAppStore, useController } from '../app-context'
import { activeRun } from '../state/run-reducer'

export interface PickerOption {
  /** null: back to the default model */
  ref: string | null
  label: string
  /** the model the session uses now (its choice, or the default when none) */
  current: boolean
  isDefault?: boolean
  /** chosen for the session but not usable (its provider was removed, or has no key) */
  unavailable?: boolean
}

export interface PickerGroup {
  provider: string
  options: PickerOption[]
}

/** What the picker lists: "Use default", then the usable models by provider (the config's order), then an unusable choice. */
export function pickerOptions(models: readonly ModelChoice[], defaultModel: string | undefined, override: string | undefined): { head: PickerOption; groups: PickerGroup[] } {
  const head: PickerOption = { ref: null, label: defaultModel ? `Use default model (${defaultModel})` : 'Use default model', current: !override }
  const groups: PickerGroup[] = []
  for (const m of models) {
    if (!m.configured) continue
    let g = groups.find((x) => x.provider === m.provider)
    if (!g) groups.push((g = { provider: m.provider, options: [] }))
    g.options.push({ ref: m.ref, label: m.ref === defaultModel ? `${m.id} (default)` : m.id, current: m.ref === override, isDefault: m.ref === defaultModel })
  }
  if (override && !groups.some((g) => g.options.some((o) => o.ref === override))) {
    groups.push({ provider: 'Not available', options: [{ ref: override, label: `${override} (unavailable)`, current: true, unavailable: true }] })
  }
  return { head, groups }
}

/** Whether the session's chosen model is one runs can use (none chosen: the default is used, so yes). */
export function overrideUsable(models: readonly ModelChoice[], override: string | undefined): boolean {
  return !override || models.some((m) => m.ref === override && m.configured)
}

/** an agent's own model in the config (`agents.list[].model`), if it has one */
export function agentModel(config: unknown, agentId: string): string | undefined {
  const list = (config as { agents?: { list?: Array<{ id?: unknown; model?: unknown }> } } | undefined)?.agents?.list
  const model = Array.isArray(list) ? list.find((a) => a?.id === agentId)?.model : undefined
  return typeof model === 'string' ? model : undefined
}

export function ModelPicker({ row }: { row: SessionRow }) {
  const controller = useController()
  const models = useAppStore('settings', (s) => s.models)
  const modelsLoaded = useAppStore('settings', (s) => s.modelsLoaded)
  // the session's agent's own model, else the global default (what the runner uses when nothing is chosen)
  const defaultModel = useAppStore('settings', (s) => agentModel(s.config?.config, row.agentId) ?? s.defaultModel)
  const running = useAppStore('runs', (s) => {
    const t = s.transcripts[row.key]
    return !!t && !!activeRun(t)
  })
  const request = useAppStore('ui', (s) => (s.modelPicker?.sessionKey === row.key ? s.modelPicker.seq : undefined))
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(0)
  const [at, setAt] = useState<{ left: number; top: number }>({ left: 0, top: 0 })
  const buttonRef = useRef<HTMLButtonElement>(null)
  const listRef = useRef<HTMLDivElement>(null)
  const wrapRef = useRef<HTMLSpanElement>(null)
  const id = useId()
  const { head, groups } = useMemo(() => pickerOptions(models, defaultModel, row.modelOverride), [models, defaultModel, row.modelOverride])
  // the options the keyboard moves through (an unusable choice can be seen, not chosen again)
  const choosable = useMemo(() => [head, ...groups.flatMap((g) => g.options)].filter((o) => !o.unavailable), [head, groups])
  const optionId = (o: PickerOption) => `${id}-opt-${o.ref ?? 'default'}`
  const usable = !modelsLoaded || overrideUsable(models, row.modelOverride)
  const shown = row.modelOverride ?? defaultModel ?? 'No model'

  const show = () => {
    const r = buttonRef.current?.getBoundingClientRect()
    // fixed: the header's subtitle clips what overflows it
    if (r) setAt({ left: Math.max(8, Math.min(r.left, window.innerWidth - 328)), top: r.bottom + 4 })
    const cur = choosable.findIndex((o) => o.current)
    setActive(cur < 0 ? 0 : cur)
    setOpen(true)
  }
  const close = (refocus = true) => {
    setOpen(false)
    if (refocus) buttonRef.current?.focus()
  }
  const choose = (o: PickerOption) => {
    close()
    if (o.unavailable || o.current) return
    void controller.setSessionModel(row.key, o.ref)
  }

  // opened from elsewhere: a failed run's "Choose another model", a bare /model
  const seen = useRef(request)
  useEffect(() => {
    if (request === undefined || request === seen.current) return
    seen.current = request
    show()
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new request opens it
  }, [request])
  useEffect(() => {
    if (open) listRef.current?.focus()
  }, [open])
  useEffect(() => {
    if (!open) return
    const outside = (e: MouseEvent) => {
      if (!wrapRef.current?.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', outside)
    return () => document.removeEventListener('mousedown', outside)
  }, [open])
  useEffect(() => {
    if (open) document.getElementById(optionId(choosable[active] ?? head))?.scrollIntoView?.({ block: 'nearest' })
    // eslint-disable-next-line react-hooks/exhaustive-deps -- ids follow the options
  }, [open, active])

  const onKeyDown = (e: React.KeyboardEvent) => {
    const last = choosable.length - 1
    if (e.key === 'ArrowDown') setActive((i) => Math.min(last, i + 1))
    else if (e.key === 'ArrowUp') setActive((i) => Math.max(0, i - 1))
    else if (e.key === 'Home') setActive(0)
    else if (e.key === 'End') setActive(last)
    else if (e.key === 'Enter' || e.key === ' ') choose(choosable[active] ?? head)
    else if (e.key === 'Escape') close()
    else if (e.key === 'Tab') {
      setOpen(false)
      return // Tab moves on as usual
    } else return
    e.preventDefault()
    e.stopPropagation()
  }

  const renderOption = (o: PickerOption) => {
    const isActive = !o.unavailable && choosable[active] === o
    return (
      <div
        key={o.ref ?? 'default'}
        id={optionId(o)}
        role="option"
        aria-selected={o.current}
        aria-disabled={o.unavailable || undefined}
        className={`model-option${isActive ? ' active' : ''}${o.unavailable ? ' unavailable' : ''}`}
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => choose(o)}
      >
        <span className="model-check" aria-hidden="true">
          {o.current ? '✓' : ''}
        </span>
        {o.label}
      </div>
    )
  }

  return (
    <span className="model-picker" ref={wrapRef}>
      <button
        ref={buttonRef}
        type="button"
        className={`btn btn-link btn-xs model-picker-button${usable ? '' : ' model-unavailable'}`}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-label={`Model: ${shown}${row.modelOverride ? '' : ' (default)'}${usable ? '' : ', unavailable'}. Change the model for this session`}
        title={usable ? 'Change the model for this session' : 'This model is no longer configured: choose another'}
        onClick={() => (open ? close() : show())}
      >
        {usable ? '' : '⚠ '}
        {shown}
        {row.modelOverride ? '' : ' (default)'} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div className="model-picker-pop" style={{ left: at.left, top: at.top }}>
          {running && (
            <p className="muted small model-picker-note" id={`${id}-note`}>
              A reply is running: it keeps its model; the change applies from the next message.
            </p>
          )}
          <div
            ref={listRef}
            role="listbox"
            tabIndex={-1}
            aria-label="Model for this session"
            aria-activedescendant={optionId(choosable[active] ?? head)}
            aria-describedby={running ? `${id}-note` : undefined}
            className="model-list"
            onKeyDown={onKeyDown}
            onBlur={(e) => {
              if (!wrapRef.current?.contains(e.relatedTarget as Node | null)) setOpen(false)
            }}
          >
            {renderOption(head)}
            {groups.map((g) => (
              <div key={g.provider} role="group" aria-labelledby={`${id}-g-${g.provider}`}>
                <div id={`${id}-g-${g.provider}`} role="presentation" className="model-group-label">
                  {g.provider}
                </div>
                {g.options.map(renderOption)}
              </div>
            ))}
            {groups.length === 0 && modelsLoaded && (
              <div role="presentation" className="muted small model-group-label">
                No configured models: add one in Settings → Models.
              </div>
            )}
          </div>
        </div>
      )}
    </span>
  )
}
