// The window's keyboard shortcuts, in one place so the key handler (App.tsx) and the buttons' titles and
// aria-keyshortcuts say the same thing. New session is Ctrl/Cmd+Shift+O, as ChatGPT's "new chat":
// Ctrl/Cmd+N opens a browser window in browser mode and a page cannot take it, and Alt/Option+N types a
// character on macOS. Chromium, Firefox and Electron's default menu leave Ctrl+Shift+O to the page.
// Ctrl/Cmd+F is the conversation's find bar (a page may take it from the browser's find).

export interface Shortcut {
  /** KeyboardEvent.key (compared case-insensitively) */
  key: string
  /** KeyboardEvent.code: the same physical key on layouts whose letters are not Latin */
  code?: string
  shift: boolean
  /** what the button's title shows after the platform's modifier */
  label: string
}

export const SHORTCUTS = {
  settings: { key: ',', code: 'Comma', shift: false, label: ',' },
  inspector: { key: 'i', code: 'KeyI', shift: true, label: 'Shift+I' },
  newSession: { key: 'o', code: 'KeyO', shift: true, label: 'Shift+O' },
  // the conversation's own find (the list is virtualized: the browser's find cannot reach most of it)
  find: { key: 'f', code: 'KeyF', shift: false, label: 'F' },
} satisfies Record<string, Shortcut>

export type ShortcutName = keyof typeof SHORTCUTS

const isMac = () => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)

/** The shortcut this key press is (Ctrl or Cmd, no Alt), if any. */
export function shortcutOf(e: Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>): ShortcutName | undefined {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return undefined
  for (const [name, s] of Object.entries(SHORTCUTS) as Array<[ShortcutName, Shortcut]>) {
    if (e.shiftKey !== s.shift) continue
    if (e.key.toLowerCase() === s.key || (s.code !== undefined && e.code === s.code)) return name
  }
  return undefined
}

/**
 * Next / previous session in the sidebar's order: Alt+↓ / Alt+↑, as Slack and Discord step through channels on
 * Windows and Linux. Chromium, Firefox and Electron leave Alt+↑/↓ to the page (Alt+←/→ are Back/Forward; Ctrl+Tab
 * and Ctrl+1–9 are the browser's tab keys, and Cmd+Shift+[ / ] on a Mac). On a Mac Option+↑/↓ moves the caret to
 * the paragraph's start or end in a text field (the message box), so there it is Cmd+Option+↓ / ↑: no text key
 * of macOS, and no browser's (Cmd+Option+←/→ switch tabs, the vertical arrows do nothing), as Xcode steps files.
 */
/** +1 / -1 for the next / previous session shortcut, if this key press is one. */
export function sessionStepOf(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>, mac = isMac()): 1 | -1 | undefined {
  if (!e.altKey || e.ctrlKey || e.metaKey !== mac || e.shiftKey) return undefined
  return e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : undefined
}

/** aria-keyshortcuts: both modifiers work on every platform */
export function ariaKeys(name: ShortcutName): string {
  const s: Shortcut = SHORTCUTS[name]
  const rest = `${s.shift ? 'Shift+' : ''}${s.key === ',' ? ',' : s.key.toUpperCase()}`
  return `Control+${rest} Meta+${rest}`
}

/** "Ctrl+Shift+O", "⌘Shift+O" on a Mac: for a button's title */
export function keyLabel(name: ShortcutName): string {
  return `${isMac() ? '⌘' : 'Ctrl+'}${SHORTCUTS[name].label}`
}
