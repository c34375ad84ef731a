import JSON5 from 'json5'
import type { ConfigIssue } from './types'
import { textNestingProblem } from '../../../shared/nesting-limit'

export type ParseResult = { ok: true; value: unknown } | { ok: false; issue: ConfigIssue }

/** JSON5 (comments, trailing commas, unquoted keys) → value, or one issue with line/column. */
export function parseConfigText(text: string): ParseResult {
  if (text.trim() === '') return { ok: true, value: {} } // an empty file means "all defaults"
  // JSON5's parser recurses per level: text nested ~100k deep would run the stack out before any check
  const deep = textNestingProblem(text)
  if (deep) return { ok: false, issue: { path: '', message: deep } }
  try {
    return { ok: true, value: JSON5.parse(text) }
  } catch (err) {
    const e = err as SyntaxError & { lineNumber?: number; columnNumber?: number }
    const detail = e.message.replace(/^JSON5:\s*/, '').replace(/\s+at \d+:\d+$/, '')
    const issue: ConfigIssue = { path: '', message: `syntax error: ${detail}` }
    if (e.lineNumber !== undefined) {
      issue.line = e.lineNumber
      issue.column = e.columnNumber
      issue.message += ` (line ${e.lineNumber}, column ${e.columnNumber})`
    }
    return { ok: false, issue }
  }
}
