import type { SessionRow } from '../../../shared/methods'

/** The name a session is shown under: its label, its name, the derived title, else its key's last part. */
export function sessionTitle(row: Pick<SessionRow, 'label' | 'displayName' | 'derivedTitle' | 'key'>): string {
  return row.label || row.displayName || row.derivedTitle || (row.key.endsWith(':main') ? 'Main session' : row.key.split(':').pop() || row.key)
}
