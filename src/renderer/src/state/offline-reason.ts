// Why nothing can go to the gateway now (send, stop, answer an approval): one wording for every control that
// waits for the connection, so the composer's hint and an approval's buttons say the same thing.
import type { SettingsState } from './stores'

/** The reason a control that needs the gateway is disabled, or undefined while connected. */
export function offlineReason(connection: SettingsState['connection']): string | undefined {
  if (connection === 'connecting') return 'Not connected — reconnecting…'
  if (connection === 'error') return 'Not connected to the gateway'
  return undefined
}
