// Pending attachments under the message box: one chip per file (thumbnail for images, name, size, remove),
// and the reasons files were refused. No file bytes reach the DOM: thumbnails are object URLs.
import { useAppStore, useController } from '../app-context'
import { formatBytes } from '../lib/format'
import type { PendingAttachment } from '../state/attachments'
import { IconFile, IconX } from './icons'

const NONE: PendingAttachment[] = []

export function AttachmentChips({ sessionKey }: { sessionKey: string }) {
  const controller = useController()
  const list = useAppStore('composer', (s) => s.attachments[sessionKey] ?? NONE)
  const errors = useAppStore('composer', (s) => s.attachErrors[sessionKey])
  const encoding = useAppStore('composer', (s) => !!s.encoding[sessionKey])
  if (!list.length && !errors?.length) return null
  return (
    <div className="attachments">
      {list.length > 0 && (
        <ul className="attachment-chips" aria-label="Attachments" aria-busy={encoding || undefined}>
          {list.map((a) => (
            <li key={a.id} className="attachment-chip" title={`${a.fileName} · ${a.mimeType} · ${formatBytes(a.sizeBytes)}`}>
              {a.previewUrl ? <img className="attachment-thumb" src={a.previewUrl} alt="" /> : <IconFile className="attachment-icon" />}
              <span className="attachment-name">{a.fileName}</span>
              <span className="attachment-size">{formatBytes(a.sizeBytes)}</span>
              <button
                type="button"
                className="btn btn-ghost btn-icon"
                aria-label={`Remove attachment ${a.fileName}`}
                // being read for a send: it leaves on success, or stays on a failure
                disabled={encoding}
                onClick={() => controller.removeAttachment(sessionKey, a.id)}
              >
                <IconX />
              </button>
            </li>
          ))}
        </ul>
      )}
      {!!errors?.length && (
        <div className="attachment-errors" role="alert">
          <ul>
            {errors.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
          <button type="button" className="btn btn-ghost btn-icon" aria-label="Dismiss attachment messages" onClick={() => controller.dismissAttachErrors(sessionKey)}>
            <IconX />
          </button>
        </div>
      )}
    </div>
  )
}
