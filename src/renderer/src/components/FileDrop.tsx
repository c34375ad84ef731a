// Files dragged over the conversation or the composer are attached to the session's next message.
// Only drags that carry files react (dragging text around the page does not).
import { useRef, useState, type ReactNode } from 'react'
import { useController } from '../app-context'

const carriesFiles = (e: React.DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files')

export function FileDrop({ sessionKey, children }: { sessionKey: string; children: ReactNode }) {
  const controller = useController()
  const [over, setOver] = useState(false)
  // dragenter/dragleave fire for every child crossed: count them to know when the drag left the area
  const depth = useRef(0)
  return (
    <div
      className="chat-body"
      onDragEnter={(e) => {
        if (!carriesFiles(e)) return
        e.preventDefault()
        depth.current++
        setOver(true)
      }}
      onDragOver={(e) => {
        if (!carriesFiles(e)) return
        e.preventDefault() // allows the drop (the default would open the file in the window)
        e.dataTransfer.dropEffect = 'copy'
      }}
      onDragLeave={(e) => {
        if (!carriesFiles(e)) return
        depth.current = Math.max(0, depth.current - 1)
        if (depth.current === 0) setOver(false)
      }}
      onDrop={(e) => {
        if (!carriesFiles(e)) return
        e.preventDefault()
        depth.current = 0
        setOver(false)
        void controller.addAttachments(sessionKey, Array.from(e.dataTransfer.files))
      }}
    >
      {children}
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          Drop files to attach them to your message
        </div>
      )}
    </div>
  )
}
