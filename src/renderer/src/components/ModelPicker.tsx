// The session's model in the conversation header, as a button that opens a listbox of the configured models,
// grouped by provider, the default marked, "Use default model" first (sessions.patch `model`, null clears the
// choice). ↑/↓/Home/End move, Enter or Space chooses, Esc or Tab closes; the listbox has the focus and announces
// the active option through aria-activedescendant. A model chosen for the session whose provider is gone is
// listed as unavailable, so the header says why its sends fail. The list is a chunk of its own (ModelList.tsx,
// preloaded while idle): what first paint loads stays under 500 kB (test/renderer-bundle.test.ts).
import { useEffect, useRef, useState } from 'react'
import type { ModelChoice, SessionRow } from '../../../shared/methods'
import { useAppStore } from '../app-context'
import { LazyBoundary } from '../lib/lazy-view'
import { ModelListView } from '../lazy-views'

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
  const models = useAppStore('settings', (s) => s.models)
  const modelsLoaded = useAppStore('settings', (s) => s.modelsLoaded)
  // the session's agent's own model, else the global default (what the runner uses when nothing is chosen)
  const defaultModel = useAppStore('settings', (s) => agentModel(s.config?.config, row.agentId) ?? s.defaultModel)
  const request = useAppStore('ui', (s) => (s.modelPicker?.sessionKey === row.key ? s.modelPicker.seq : undefined))
  const [open, setOpen] = useState(false)
  const [at, setAt] = useState<{ left: number; top: number }>({ left: 0, top: 0 })
  const buttonRef = useRef<HTMLButtonElement>(null)
  const wrapRef = useRef<HTMLSpanElement>(null)
  const usable = !modelsLoaded || overrideUsable(models, row.modelOverride)
  const shown = row.modelOverride ?? defaultModel ?? 'No model'

  const show = () => {
    const r = buttonRef.current?.getBoundingClientRect()
    // fixed: the header's subtitle clips what overflows it
    if (r) setAt({ left: Math.max(8, Math.min(r.left, window.innerWidth - 328)), top: r.bottom + 4 })
    setOpen(true)
  }
  const close = (refocus = true) => {
    setOpen(false)
    if (refocus) buttonRef.current?.focus()
  }

  // opened from elsewhere: a failed run's "Choose another model", a bare /model
  const seen = useRef(request)
  useEffect(() => {
    if (request === undefined || request === seen.current) return
    seen.current = request
    show()
  }, [request])

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
        <LazyBoundary name="Models">
          <ModelListView row={row} defaultModel={defaultModel} at={at} wrapRef={wrapRef} onClose={close} />
        </LazyBoundary>
      )}
    </span>
  )
}
