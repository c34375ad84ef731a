// A user message being edited in place (Messages.tsx): a chunk of its own, preloaded while idle (warm-up.tsx),
// so what first paint loads stays under 500 kB (test/renderer-bundle.test.ts).
import { useLayoutEffect, useRef, useState } from 'react'
import { isBlankMessage } from '../../../shared/hidden-chars'

/** the editor grows with the text up to this height, then scrolls */
const EDITOR_MAX_PX = 320

/**
 * A user message being edited in place. Sending forks the conversation just before it (the original session is
 * kept as it is) and sends the new text there — said beside the buttons, so nobody expects an overwrite.
 */
export function EditMessage({ text, onCancel, onSend }: { text: string; onCancel: () => void; onSend: (text: string) => void }) {
  const [value, setValue] = useState(text)
  const blank = isBlankMessage(value.trim())
  // tall enough for the whole message as it wraps (rows count only its line breaks: a long line wrapped in a
  // narrow window was cut off), up to EDITOR_MAX_PX; past that it scrolls
  const ref = useRef<HTMLTextAreaElement>(null)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    el.style.height = 'auto'
    const border = el.offsetHeight - el.clientHeight
    el.style.height = `${Math.min(EDITOR_MAX_PX, el.scrollHeight + border)}px`
  }, [value])
  const send = () => {
    if (!blank) onSend(value)
  }
  return (
    <div className="msg msg-user msg-editing">
      <textarea
        ref={ref}
        className="edit-message"
        aria-label="Edit message"
        aria-describedby="edit-message-note"
        autoFocus
        value={value}
        rows={Math.min(10, value.split('\n').length + 1)}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault()
            e.stopPropagation()
            onCancel()
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault()
            send()
          }
        }}
      />
      <div className="msg-note" id="edit-message-note">
        Sends in a new session with the conversation before this message; this session stays as it is.
      </div>
      <div className="msg-tools">
        <button type="button" className="btn btn-xs" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary btn-xs" disabled={blank} onClick={send}>
          Send in new session
        </button>
      </div>
    </div>
  )
}
