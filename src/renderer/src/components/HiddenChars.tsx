// Trojan Source safety where the user decides something (an exec approval's command, a tool call's arguments,
// a link): a bidi control or an invisible character is shown as a marked ⟨U+202E⟩ token, named in its title,
// instead of silently reordering or hiding what follows, and a warning line says the text holds some.
// The set is `src/shared/hidden-chars.ts` (the CLI's approval question reveals the same ones as plain text).
import { Fragment, type ReactNode } from 'react'
import { splitHidden } from '../../../shared/hidden-chars'

/** The text with each hidden character as a marked token; the text itself when it has none. */
export function revealHidden(text: string): ReactNode {
  const parts = splitHidden(text)
  if (parts.length === 1 && 'text' in parts[0]) return text
  return parts.map((p, i) =>
    'text' in p ? (
      <Fragment key={i}>{p.text}</Fragment>
    ) : (
      <span key={i} className={p.bidi ? 'hidden-char hidden-char-bidi' : 'hidden-char'} title={`${p.label} ${p.name} (hidden in the text)`}>
        ⟨{p.label}⟩
      </span>
    ),
  )
}

/** The distinct hidden characters of a text, "U+202E right-to-left override", first seen first. */
export function hiddenCharsIn(text: string): string[] {
  const seen = new Set<string>()
  for (const p of splitHidden(text)) if (!('text' in p)) seen.add(`${p.label} ${p.name}`)
  return [...seen]
}

/** The warning line under a text that holds hidden characters (nothing when it holds none). `what`: "command", "link". */
export function HiddenCharsWarning({ text, what }: { text: string; what: string }) {
  const found = hiddenCharsIn(text)
  if (!found.length) return null
  const listed = found.length > 4 ? `${found.slice(0, 4).join(', ')} and ${found.length - 4} more` : found.join(', ')
  return (
    <p className="hidden-chars-warning" role="note">
      Hidden or bidirectional characters in this {what}: {listed} — shown as ⟨U+…⟩. What it shows can differ from
      what it does.
    </p>
  )
}
