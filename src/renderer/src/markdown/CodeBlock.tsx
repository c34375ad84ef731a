import { memo, useMemo } from 'react'
import { CopyButton } from '../components/CopyButton'
import { highlight, knownLanguage } from './highlight'
import { LruCache } from '../lib/lru'

// Rows re-mount when scrolled back into view; don't re-highlight the same code each time.
const highlighted = new LruCache<string, ReturnType<typeof highlight>>(300)

function cachedHighlight(code: string, lang: string | undefined) {
  const key = `${lang ?? ''}\u0000${code}`
  let nodes = highlighted.get(key)
  if (nodes === undefined && !highlighted.has(key)) {
    nodes = highlight(code, lang)
    highlighted.set(key, nodes)
  }
  return nodes
}

interface Props {
  code: string
  lang?: string
  /** still streaming: skip highlighting until the fence closes */
  streaming?: boolean
}

export const CodeBlock = memo(function CodeBlock({ code, lang, streaming }: Props) {
  const nodes = useMemo(() => (streaming ? undefined : cachedHighlight(code, lang)), [code, lang, streaming])
  const label = knownLanguage(lang) ?? (lang?.trim().split(/\s+/)[0] || 'text')
  return (
    <div className="code-block">
      <div className="code-head">
        <span className="code-lang">{label}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      <pre>
        <code className={nodes ? `hljs language-${label}` : undefined}>{nodes ?? code}</code>
      </pre>
    </div>
  )
})
