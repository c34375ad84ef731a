// Code highlighting with highlight.js core and a handful of common languages. hljs returns HTML; we
// never inject it: its output only contains escaped text and <span class="hljs-…"> wrappers, which
// we turn into React elements ourselves (anything else would be rendered as plain text).
// A chunk of its own: code blocks import it through highlighter.ts once one needs it (or the idle
// warm-up does), not at first paint; the language list itself is languages.ts.
import type { LanguageFn } from 'highlight.js'
import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import c from 'highlight.js/lib/languages/c'
import cpp from 'highlight.js/lib/languages/cpp'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import java from 'highlight.js/lib/languages/java'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import markdown from 'highlight.js/lib/languages/markdown'
import python from 'highlight.js/lib/languages/python'
import rust from 'highlight.js/lib/languages/rust'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'
import { createElement, type ReactNode } from 'react'
import { decodeEntities } from '../../../shared/html-entities'
import { highlightable, knownLanguage, LANGUAGE_ALIASES, type LanguageName } from './languages'

// typed by the names list, so the two cannot drift apart
const GRAMMARS: Record<LanguageName, LanguageFn> = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml }
for (const [name, lang] of Object.entries(GRAMMARS)) hljs.registerLanguage(name, lang)
for (const [alias, languageName] of Object.entries(LANGUAGE_ALIASES)) hljs.registerAliases(alias, { languageName })

const TOKEN_RE = /<span class="([a-zA-Z0-9_ -]+)">|<\/span>|[^<]+/g

/** Converts hljs output HTML to React nodes without innerHTML. Unexpected markup → undefined. */
export function htmlToNodes(html: string): ReactNode[] | undefined {
  const root: ReactNode[] = []
  const stack: Array<{ cls: string; children: ReactNode[] }> = []
  let consumed = 0
  let key = 0
  TOKEN_RE.lastIndex = 0
  for (let m = TOKEN_RE.exec(html); m; m = TOKEN_RE.exec(html)) {
    if (m.index !== consumed) return undefined
    consumed = m.index + m[0].length
    const target = stack.length ? stack[stack.length - 1].children : root
    if (m[1] !== undefined) stack.push({ cls: m[1], children: [] })
    else if (m[0] === '</span>') {
      const top = stack.pop()
      if (!top) return undefined
      const parent = stack.length ? stack[stack.length - 1].children : root
      parent.push(createElement('span', { key: key++, className: top.cls }, ...top.children))
    } else target.push(decodeEntities(m[0]))
  }
  if (consumed !== html.length || stack.length) return undefined
  return root
}

/** Highlighted React nodes for a code block, or undefined (caller renders plain text). */
export function highlight(code: string, lang: string | undefined): ReactNode[] | undefined {
  const language = knownLanguage(lang)
  if (!language || !highlightable(code, lang)) return undefined
  try {
    return htmlToNodes(hljs.highlight(code, { language, ignoreIllegals: true }).value)
  } catch {
    return undefined
  }
}

/** Compiles one grammar now (see warm-up.tsx), so the first code block in it highlights quickly. */
export function warmUpLanguage(name: string): void {
  try {
    hljs.highlight('x', { language: name, ignoreIllegals: true })
  } catch {
    // a grammar that fails here fails later too; highlighting then falls back to plain text
  }
}
