// A stopped run's words (the footer, the announcer): a Stop is just "Stopped"; a run the gateway's shutdown cut
// off says so — otherwise the user sees a reply that stopped for no reason they know.
import type { RunItem } from './types'

export const stoppedText = (item: Pick<RunItem, 'stopCause'>): string => (item.stopCause === 'shutdown' ? 'Stopped: the gateway shut down' : 'Stopped')
