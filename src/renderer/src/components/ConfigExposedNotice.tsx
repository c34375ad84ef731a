// status.configFileExposed: loopdesk.json holds keys or the gateway token and other users of this computer can
// read it (its mode could not be narrowed, or was widened since). The CLI's `status` says so; the window says it
// at the top of Settings, with the command that fixes it and a way to check again.
import { useAppStore, useController } from '../app-context'

export function ConfigExposedNotice() {
  const controller = useController()
  const exposed = useAppStore('settings', (s) => s.status?.configFileExposed)
  if (!exposed) return null
  const what = exposed.secrets.join(', ')
  return (
    <div className="callout callout-warn" role="alert" aria-label="Config file readable by others">
      Your config file holds secrets ({what}) and other users of this computer can read it (mode {exposed.mode}). Make it private with{' '}
      <code>chmod 600 {exposed.path}</code>.{' '}
      <button type="button" className="btn-link" onClick={() => void controller.loadStatus()}>
        Check again
      </button>
    </div>
  )
}
