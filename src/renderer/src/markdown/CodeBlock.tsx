import { memo, useEffect, useMemo } from 'react'
import { CopyButton } from '../components/CopyButton'
import { loadHighlighter, useHighlighter, type Highlighter } from './highlighter'
import { highlightable, knownLanguage } from './languages'
import { LruCache } from '../lib/lru'
import { codeLineGroups, groupLines } from './code-lines'

// Rows re-mount when scrolled back into view; don't re-highlight the same code each time.
const highlighted = new LruCache<string, ReturnType<Highlighter['highlight']>>(300)

function cachedHighlight(hl: Highlighter, code: string, lang: string | undefined) {
  const key = `${lang ?? ''}\u0000${code}`
  let nodes = highlighted.get(key)
  if (nodes === undefined && !highlighted.has(key)) {
    nodes = hl.highlight(code, lang)
    highlighted.set(key, nodes)
  }
  return nodes
}

interface Props {
  code: string
  lang?: string
  /** still streaming: skip highlighting until the fence closes */
  streaming?: boolean
  /** continues a code block cut into pieces (a huge one, `blocks.ts`): no header of its own, joined to the one above */
  cont?: boolean
  /** goes on in the next piece: joined to it (a cut block is too long to highlight) */
  split?: boolean
  /** a cut block's first piece: the whole block, its pieces joined, for its Copy */
  copyWhole?: () => string
}

export const CodeBlock = memo(function CodeBlock({ code, lang, streaming, cont, split, copyWhole }: Props) {
  const hl = useHighlighter()
  const wanted = !streaming && !cont && !split && highlightable(code, lang)
  // plain text until the highlighter's chunk is here (it is fetched once, by the first block that needs it)
  useEffect(() => {
    if (wanted && !hl) void loadHighlighter()
  }, [wanted, hl])
  const nodes = useMemo(() => (wanted && hl ? cachedHighlight(hl, code, lang) : undefined), [wanted, hl, code, lang])
  const label = knownLanguage(lang) ?? (lang?.trim().split(/\s+/)[0] || 'text')
  return (
    <div className={`code-block${cont ? ' code-cont' : ''}${split ? ' code-cut' : ''}`}>
      {!cont && (
        // (not the reply's text: find neither counts nor marks the language label)
        <div className="code-head" data-find-skip="">
          <span className="code-lang">{label}</span>
          {/* a cut block's first piece copies the whole block, read from the message only on click */}
          {split ? copyWhole && <CopyButton text={copyWhole} label="Copy code" /> : <CopyButton text={code} label="Copy code" />}
        </div>
      )}
      <pre>
        <code className={nodes ? `hljs language-${label}` : undefined}>{nodes ?? <PlainCode code={code} />}</code>
      </pre>
    </div>
  )
})

/** Plain code (or a reply's plain-text tail); a long one in line groups the browser skips while off-screen (code-lines.ts). */
export function PlainCode({ code }: { code: string }) {
  const groups = useMemo(() => codeLineGroups(code), [code])
  if (groups.length === 1) return code
  return groups.map((g, i) => (
    // the skipped group's height: its lines at the pre's line height (1.5), so the row does not jump when drawn
    // (the height only: a width would make a skipped group in a code block that wide, styles.css `pre .code-lines`)
    <span key={i} className="code-lines" style={{ containIntrinsicHeight: `auto ${groupLines(g) * 1.5}em` }}>
      {g}
    </span>
  ))
}
