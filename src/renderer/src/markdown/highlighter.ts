// Loads highlight.ts (highlight.js and its grammars, ~80 kB) on demand: the first code block that can
// be highlighted asks for it, or the idle warm-up does. Until it is here code blocks show plain text,
// then re-render highlighted. A chunk that fails to load leaves them plain (asking again calls import() again, but Chromium keeps a failed module load failed until the page reloads).
import { useSyncExternalStore } from 'react'

export type Highlighter = typeof import('./highlight')

let loaded: Highlighter | undefined
let loading: Promise<Highlighter | undefined> | undefined
const listeners = new Set<() => void>()

/** Fetches the highlighter once (later calls share it); resolves undefined when it cannot load. */
export function loadHighlighter(): Promise<Highlighter | undefined> {
  loading ??= import('./highlight').then(
    (m) => {
      loaded = m
      for (const l of listeners) l()
      return m
    },
    () => {
      loading = undefined
      return undefined
    },
  )
  return loading
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** The highlighter once loaded (the component re-renders then), else undefined. */
export function useHighlighter(): Highlighter | undefined {
  return useSyncExternalStore(subscribe, () => loaded)
}
