import { useEffect, useRef, useState } from 'react'
import { copyText } from '../lib/clipboard'

interface Props {
  /** text to copy (a function is evaluated lazily, e.g. to stringify big JSON only on click) */
  text: string | (() => string)
  label?: string
  className?: string
}

export function CopyButton({ text, label = 'Copy', className }: Props) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  return (
    <button
      type="button"
      className={`btn btn-ghost btn-xs ${className ?? ''}`}
      aria-label={label}
      onClick={async () => {
        const ok = await copyText(typeof text === 'function' ? text() : text)
        setState(ok ? 'copied' : 'failed')
        clearTimeout(timer.current)
        timer.current = setTimeout(() => setState('idle'), 1500)
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  )
}
