// The file change a write or an edit call describes, for its tool card (ToolFileView.tsx draws it).

export type FileChange =
  { kind: 'edit'; oldText: string; newText: string } | { kind: 'write'; content: string }

/** The file change a call's arguments describe (the runtime's `write` {path, content}, `edit` {path, oldText, newText}). */
export function fileChangeOf(name: string, args: unknown): FileChange | undefined {
  if (!args || typeof args !== 'object') return undefined
  const a = args as Record<string, unknown>
  if (name === 'edit' && typeof a.oldText === 'string' && typeof a.newText === 'string')
    return { kind: 'edit', oldText: a.oldText, newText: a.newText }
  if (name === 'write' && typeof a.content === 'string') return { kind: 'write', content: a.content }
  return undefined
}
