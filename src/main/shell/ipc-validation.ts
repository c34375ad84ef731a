// Param validation for the IPC handlers: the method table's dispatch (closed TypeBox schema per method)
// and the schemas of the subscribe/unsubscribe channels. Loaded lazily by ipc.ts (TypeBox is a large
// module graph and is not needed to open the window).
import Type from 'typebox'
import { Compile } from 'typebox/compile'
import type { EventName } from '../../shared/events'

export { dispatch } from '../api/dispatch'

const EVENT_NAMES = [
  'agent',
  'chat',
  'sessions.changed',
  'exec.approval.requested',
  'exec.approval.resolved',
  'queue.changed',
  'tick',
  'shutdown',
] as const satisfies readonly EventName[]
// Compile-time check that the list above names every event.
const _allEvents: Record<Exclude<EventName, (typeof EVENT_NAMES)[number]>, never> = {}
void _allEvents

const SubscribeSchema = Type.Object(
  {
    // `<pageId>-<n>`: the preload picks a random pageId per loaded document (see entryFor in ipc.ts).
    subId: Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_]{8,40}-[0-9]{1,9}$' }),
    filter: Type.Object(
      {
        sessionKey: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
        runId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
        events: Type.Optional(Type.Array(Type.Union(EVENT_NAMES.map((n) => Type.Literal(n))), { maxItems: 16 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
const UnsubscribeSchema = Type.Object({ subId: SubscribeSchema.properties.subId }, { additionalProperties: false })
export const checkSubscribe = Compile(SubscribeSchema)
export const checkUnsubscribe = Compile(UnsubscribeSchema)
/** subscribePairing: no filter (device.pair.requested / resolved are all there is) */
export const checkSubscribePairing = Compile(Type.Object({ subId: SubscribeSchema.properties.subId }, { additionalProperties: false }))

export function problems(v: ReturnType<typeof Compile>, x: unknown): string {
  return (
    [...v.Errors(x)]
      .filter((e) => e.keyword !== 'boolean')
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'}: ${e.message}`)
      .join('; ') || 'invalid params'
  )
}
