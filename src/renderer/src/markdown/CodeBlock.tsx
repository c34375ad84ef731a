import { memo, useMemo } from 'react'
import { CopyButton } from '../components/CopyButton'
import { highlight, knownLanguage } from './highlight'

interface Props {
  code: string
  lang?: string
  /** still streaming: skip highlighting until the fence closes */
  streaming?: boolean
}

export const CodeBlock = memo(function CodeBlock({ code, lang, streaming }: Props) {
  const nodes = useMemo(() => (streaming ? undefined : highlight(code, lang)), [code, lang, streaming])
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
