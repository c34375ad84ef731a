// The code languages the highlighter knows, by name and alias. Apart from highlight.ts (highlight.js and
// its grammars, a chunk of its own loaded after first paint), so a code block can be labelled — and
// told whether it will be highlighted — before that chunk is here.

/** The registered grammars, most used in replies first (warm-up.tsx compiles them in this order). */
export const LANGUAGE_NAMES = ['typescript', 'javascript', 'python', 'bash', 'json', 'c', 'cpp', 'css', 'diff', 'go', 'java', 'markdown', 'rust', 'sql', 'xml', 'yaml'] as const
export type LanguageName = (typeof LANGUAGE_NAMES)[number]

export const LANGUAGE_ALIASES: Record<string, LanguageName> = {
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  py: 'python',
  html: 'xml',
  svg: 'xml',
  yml: 'yaml',
  rs: 'rust',
  md: 'markdown',
  h: 'cpp',
  hpp: 'cpp',
  cc: 'cpp',
}

/** Blocks larger than this are shown as plain text (highlighting is superlinear on some grammars). */
export const MAX_HIGHLIGHT_CHARS = 50_000

const KNOWN: ReadonlySet<string> = new Set([...LANGUAGE_NAMES, ...Object.keys(LANGUAGE_ALIASES)])

/** The fence's language (first word, lower case) when the highlighter knows it. */
export function knownLanguage(lang: string | undefined): string | undefined {
  if (!lang) return undefined
  const l = lang.trim().split(/\s+/)[0].toLowerCase()
  return KNOWN.has(l) ? l : undefined
}

/** Whether a finished code block gets highlighted (else it stays plain text). */
export function highlightable(code: string, lang: string | undefined): boolean {
  return knownLanguage(lang) !== undefined && code.length <= MAX_HIGHLIGHT_CHARS
}
