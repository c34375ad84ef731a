// The model picker's list (ModelPicker.tsx keeps the button): a listbox of the configured models by provider,
// "Use default model" first; it takes the focus and names the active option through aria-activedescendant.
import { useEffect, useId, useMemo, useRef, useState, type RefObject } from 'react'
import type { SessionRow } from '../../../shared/methods'
import { useAppStore, useController } from '../app-context'
import { activeRun } from '../state/run-reducer'
import { pickerOptions, type PickerOption } from './picker-options'

export interface ModelListProps {
  row: SessionRow
  defaultModel: string | undefined
  at: { left: number; top: number }
  /** the picker (button and list): a press outside it closes the list */
  wrapRef: RefObject<HTMLSpanElement | null>
  /** closes the list; refocus: the button takes the focus back */
  onClose: (refocus?: boolean) => void
}

export function ModelList({ row, defaultModel, at, wrapRef, onClose }: ModelListProps) {
  const controller = useController()
  const models = useAppStore('settings', (s) => s.models)
  const modelsLoaded = useAppStore('settings', (s) => s.modelsLoaded)
  const running = useAppStore('runs', (s) => {
    const t = s.transcripts[row.key]
    return !!t && !!activeRun(t)
  })
  const listRef = useRef<HTMLDivElement>(null)
  const id = useId()
  const { head, groups } = useMemo(() => pickerOptions(models, defaultModel, row.modelOverride), [models, defaultModel, row.modelOverride])
  // the options the keyboard moves through (an unusable choice can be seen, not chosen again)
  const choosable = useMemo(() => [head, ...groups.flatMap((g) => g.options)].filter((o) => !o.unavailable), [head, groups])
  const [active, setActive] = useState(() => Math.max(0, choosable.findIndex((o) => o.current)))
  const optionId = (o: PickerOption) => `${id}-opt-${o.ref ?? 'default'}`

  const choose = (o: PickerOption) => {
    onClose()
    if (o.unavailable || o.current) return
    void controller.setSessionModel(row.key, o.ref)
  }

  useEffect(() => listRef.current?.focus(), [])
  useEffect(() => {
    const outside = (e: MouseEvent) => {
      if (!wrapRef.current?.contains(e.target as Node)) onClose(false)
    }
    document.addEventListener('mousedown', outside)
    return () => document.removeEventListener('mousedown', outside)
  }, [wrapRef, onClose])
  useEffect(() => {
    document.getElementById(optionId(choosable[active] ?? head))?.scrollIntoView?.({ block: 'nearest' })
    // eslint-disable-next-line react-hooks/exhaustive-deps -- ids follow the options
  }, [active])

  const onKeyDown = (e: React.KeyboardEvent) => {
    const last = choosable.length - 1
    if (e.key === 'ArrowDown') setActive((i) => Math.min(last, i + 1))
    else if (e.key === 'ArrowUp') setActive((i) => Math.max(0, i - 1))
    else if (e.key === 'Home') setActive(0)
    else if (e.key === 'End') setActive(last)
    else if (e.key === 'Enter' || e.key === ' ') choose(choosable[active] ?? head)
    else if (e.key === 'Escape') onClose()
    else if (e.key === 'Tab') {
      onClose(false)
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
          if (!wrapRef.current?.contains(e.relatedTarget as Node | null)) onClose(false)
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
  )
}
