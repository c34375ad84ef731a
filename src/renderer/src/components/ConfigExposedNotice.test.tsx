// status.configFileExposed reaches the user in the window, not only in `loopdesk status`: Settings opens with a
// warning naming the secrets, the mode and the chmod that fixes it; "Check again" reads status anew.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, expect, it } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import type { Result, Results } from '../../../shared/methods'
import { preloadSettings } from '../lazy-views'
import { renderApp } from '../test-utils'

// Settings is a lazily loaded chunk (see Settings.test.tsx)
beforeAll(async () => {
  await preloadSettings()
})

it('Settings warns that loopdesk.json with keys is readable by others, with the fix, until status says otherwise', async () => {
  const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
  const status = bridge.status.bind(bridge) as () => Promise<Result<Results['status']>>
  let exposed = true
  ;(bridge as unknown as { status: typeof status }).status = async () => {
    const r = await status()
    const file = { path: '/home/u/.loopdesk/loopdesk.json', mode: '0644', secrets: ['providers.openai.apiKey', 'gateway.auth.token'] }
    return r.ok && exposed ? { ...r, data: { ...r.data, configFileExposed: file } } : r
  }
  const user = userEvent.setup()
  await renderApp({}, bridge)
  await user.click(screen.getByRole('button', { name: 'Settings' }))
  const dialog = await screen.findByRole('dialog', { name: 'Settings' })
  const alert = await within(dialog).findByRole('alert', { name: 'Config file readable by others' })
  expect(alert).toHaveTextContent('Your config file holds secrets (providers.openai.apiKey, gateway.auth.token) and other users of this computer can read it (mode 0644)')
  expect(alert).toHaveTextContent('chmod 600 /home/u/.loopdesk/loopdesk.json')
  // the user ran the chmod: checking again drops the warning
  exposed = false
  await user.click(within(alert).getByRole('button', { name: 'Check again' }))
  await waitFor(() => expect(within(dialog).queryByRole('alert', { name: 'Config file readable by others' })).toBeNull())
})
