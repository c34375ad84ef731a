// The commands a message can be, offered while the draft is a "/" and the start of a name: /new, /reset,
// /stop, /model (src/shared/chat-commands.ts, the list the runtime parses). ↑/↓ choose, Tab or Enter completes,
// Enter on a command typed out whole sends it, Esc closes. The textarea keeps the focus; the
// list is announced through aria-activedescendant.
import { useMemo, useState } from 'react'
import { CHAT_COMMANDS } from '../../../shared/chat-commands'
import type { ChatCommandInfo } from '../../../shared/methods'

export const SLASH_MENU_ID = 'slash-menu'
export const slashOptionId = (name: string) => `slash-${name}`

/** The commands the draft is the start of ("/" alone: all of them), or none when it is not one. */
export function slashMatches(draft: string): ChatCommandInfo[] {
  const m = /^\/([a-z]*)$/i.exec(draft)
  if (!m) return []
  const typed = m[1].toLowerCase()
  return CHAT_COMMANDS.filter((c) => c.name.startsWith(typed))
}

export interface SlashMenuState {
  open: boolean
  matches: ChatCommandInfo[]
  active: ChatCommandInfo | undefined
  /** handles a key in the textarea; true when the menu used it */
  onKeyDown(e: React.KeyboardEvent<HTMLTextAreaElement>): boolean
  /** the draft as the chosen command leaves it */
  complete(c: ChatCommandInfo): void
}

export function useSlashMenu(draft: string, setDraft: (text: string) => void, send: () => void): SlashMenuState {
  const [index, setIndex] = useState(0)
  // Esc closes the menu for this draft; typing on opens it again
  const [dismissed, setDismissed] = useState<string | undefined>()
  const matches = useMemo(() => slashMatches(draft), [draft])
  const open = matches.length > 0 && dismissed !== draft
  const active = open ? matches[Math.min(index, matches.length - 1)] : undefined
  const complete = (c: ChatCommandInfo) => {
    setIndex(0)
    setDraft(c.acceptsArgs ? `/${c.name} ` : `/${c.name}`)
    if (!c.acceptsArgs) setDismissed(`/${c.name}`)
  }
  const onKeyDown = (e: React.KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || !active || e.nativeEvent.isComposing) return false
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const i = matches.indexOf(active)
      setIndex((i + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length)
    } else if (e.key === 'Escape') {
      setDismissed(draft)
    } else if (e.key === 'Tab' && !e.shiftKey) {
      complete(active)
    } else if (e.key === 'Enter' && !e.shiftKey) {
      // a whole command typed out: Enter sends it, as it would without the menu (their text is optional)
      if (draft.toLowerCase() === `/${active.name}`) send()
      else complete(active)
    } else {
      return false
    }
    e.preventDefault()
    return true
  }
  return { open, matches, active, onKeyDown, complete }
}

export function SlashMenu({ menu, onPick }: { menu: SlashMenuState; onPick(c: ChatCommandInfo): void }) {
  if (!menu.open) return null
  return (
    <ul className="slash-menu" id={SLASH_MENU_ID} role="listbox" aria-label="Commands">
      {menu.matches.map((c) => (
        <li
          key={c.name}
          id={slashOptionId(c.name)}
          role="option"
          aria-selected={c === menu.active}
          className={c === menu.active ? 'active' : undefined}
          // keep the focus in the textarea
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => onPick(c)}
        >
          <span className="slash-name">/{c.name}</span>
          <span className="slash-desc">{c.description}</span>
        </li>
      ))}
    </ul>
  )
}
