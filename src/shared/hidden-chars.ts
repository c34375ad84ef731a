// Characters that show nothing, or that reorder the text around them (Trojan Source, CVE-2021-42574): what a
// message made only of them is (blank: refused like an empty one, runtime and composer alike), what the window
// marks visibly where the user decides something (an exec approval's command, a tool call's arguments, a
// link), and what a derived session title drops. No runtime imports: the renderer's first paint loads this.

/** Bidi controls: embeddings and overrides U+202A–202E, isolates U+2066–2069, the marks LRM/RLM/ALM. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069'
/** Zero-width and format characters that show nothing: soft hyphen, Mongolian vowel separator, zero-width
 * space/non-joiner/joiner, word joiner, invisible operators and the deprecated format controls, Hangul fillers,
 * BOM, interlinear annotation marks. */
const ZERO_WIDTH = '\\u00ad\\u180e\\u200b-\\u200d\\u2060-\\u2065\\u206a-\\u206f\\u3164\\uffa0\\ufeff\\ufff9-\\ufffb'
/** Tag characters (U+E0000–E007F): invisible, and able to carry a whole hidden ASCII text. */
const TAGS = '\\u{e0000}-\\u{e007f}'

/** One bidi control. */
export const BIDI_CONTROL = new RegExp(`[${BIDI}]`, 'u')
/** Every character the window marks where it matters (global: for replace / matchAll). */
export const HIDDEN_CHARS = new RegExp(`[${BIDI}${ZERO_WIDTH}${TAGS}]`, 'gu')
/** What a derived title drops: as HIDDEN_CHARS but ZWNJ/ZWJ, which emoji sequences and Persian need. */
export const TITLE_DROPPED = new RegExp(`[${BIDI}\\u00ad\\u180e\\u200b\\u2060-\\u2064\\ufeff${TAGS}]`, 'gu')

/** Besides whitespace and HIDDEN_CHARS, what shows nothing on its own: variation selectors, the combining
 * grapheme joiner, the Hangul choseong/jungseong fillers. */
// eslint-disable-next-line no-misleading-character-class -- the marks (variation selectors, a Hangul filler) are listed to match alone, not as parts of a character
const BLANK = new RegExp(`^[\\s${BIDI}${ZERO_WIDTH}${TAGS}\\u034f\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}\\u115f\\u1160]*$`, 'u')

/** True when the text shows nothing: empty, whitespace, or only invisible characters (a lone U+200B). */
export function isBlankMessage(text: string): boolean {
  return BLANK.test(text)
}

/** Why a message with only invisible characters is refused (appended to the empty-message error). */
export const INVISIBLE_ONLY = 'the message has only invisible characters'

/** The names the window shows for the hidden characters it marks. */
const NAMES: Record<number, string> = {
  0x00ad: 'soft hyphen',
  0x061c: 'Arabic letter mark',
  0x180e: 'Mongolian vowel separator',
  0x200b: 'zero width space',
  0x200c: 'zero width non-joiner',
  0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2061: 'function application',
  0x2062: 'invisible times',
  0x2063: 'invisible separator',
  0x2064: 'invisible plus',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x3164: 'Hangul filler',
  0xffa0: 'halfwidth Hangul filler',
  0xfeff: 'zero width no-break space (BOM)',
}

/** "U+202E" */
export const codePointLabel = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

/** The character's name ("right-to-left override", "tag character 'a'"). */
export function hiddenCharName(c: string): string {
  const cp = c.codePointAt(0)!
  if (cp >= 0xe0000 && cp <= 0xe007f) {
    const ascii = cp - 0xe0000
    return ascii >= 0x20 && ascii < 0x7f ? `tag character '${String.fromCharCode(ascii)}'` : 'tag character'
  }
  return NAMES[cp] ?? 'invisible character'
}

/** A piece of text: shown as it is, or a hidden character to show as a marked token. */
export type HiddenPart = { text: string } | { hidden: string; label: string; name: string; bidi: boolean }

/** The text cut at each hidden character (none: one plain part). */
export function splitHidden(text: string): HiddenPart[] {
  const parts: HiddenPart[] = []
  let last = 0
  for (const m of text.matchAll(HIDDEN_CHARS)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index) })
    parts.push({ hidden: m[0], label: codePointLabel(m[0]), name: hiddenCharName(m[0]), bidi: BIDI_CONTROL.test(m[0]) })
    last = m.index + m[0].length
  }
  if (last < text.length) parts.push({ text: text.slice(last) })
  return parts
}

/** Whether the text holds a character HIDDEN_CHARS marks. */
export const hasHiddenChars = (text: string) => text.search(HIDDEN_CHARS) >= 0
