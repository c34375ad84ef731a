// Where a forked session came from (its row's forkSource): Regenerate, Edit and Fork open a new session and
// leave the original as it was, so the header says so and leads back to it.
import { useAppStore, useController } from '../app-context'
import { sessionTitle } from '../../../shared/session-title'
import type { SessionRow } from '../../../shared/methods'

export function ForkOrigin({ row }: { row: SessionRow }) {
  const controller = useController()
  const source = row.forkSource?.sessionKey
  const parent = useAppStore('sessions', (s) => (source ? s.rows.find((r) => r.key === source) : undefined))
  if (!source) return null
  // cut before one of its messages (Regenerate, Edit) or a copy of the whole conversation (Fork)
  const what = row.forkSource?.entryId ? 'Branched from' : 'Copied from'
  return (
    <span className="fork-origin">
      {' · '}
      {what}{' '}
      {parent ? (
        <button type="button" className="btn btn-link btn-xs" title="Open the original session (unchanged)" onClick={() => void controller.selectSession(parent.key)}>
          <bdi>{sessionTitle(parent)}</bdi>
        </button>
      ) : (
        'a session no longer listed'
      )}
    </span>
  )
}
