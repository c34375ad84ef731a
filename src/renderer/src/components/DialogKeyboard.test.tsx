// The Settings dialog driven from the keyboard alone: Escape closes it wherever focus is (a nested
// confirmation first), Tab stays inside it, and a save that rebuilds the endpoint form keeps focus in it.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { renderApp } from '../test-utils'
import { preloadSettings } from '../lazy-views'

beforeAll(async () => {
  await preloadSettings()
})

describe('Settings from the keyboard', () => {
  it('saving an endpoint leaves focus on its Edit button, and Escape then closes Settings', async () => {
    const user = userEvent.setup()
    await renderApp({ configured: false })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const url = within(dialog).getByLabelText('Base URL')
    await user.clear(url)
    await user.type(url, 'http://127.0.0.1:1234/v1')
    await user.type(within(dialog).getByLabelText('Model id'), 'llama3.1:8b')
    within(dialog).getByRole('button', { name: 'Save endpoint' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Edit local' })).toHaveFocus())
    await user.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Settings' })).not.toBeInTheDocument())
  })

  it('Escape closes Settings with focus fallen to <body>, a nested confirmation first', async () => {
    const user = userEvent.setup()
    await renderApp()
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    await user.type(within(dialog).getByLabelText('Anthropic API key'), 'sk-unsaved')
    ;(document.activeElement as HTMLElement).blur()
    expect(document.activeElement).toBe(document.body)
    await user.keyboard('{Escape}')
    const confirm = await screen.findByRole('alertdialog', { name: 'Discard unsaved changes?' })
    ;(document.activeElement as HTMLElement).blur()
    await user.keyboard('{Escape}')
    await waitFor(() => expect(confirm).not.toBeInTheDocument())
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBeInTheDocument()
    await user.keyboard('{Escape}')
    await user.click(await screen.findByRole('button', { name: 'Discard and close' }))
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Settings' })).not.toBeInTheDocument())
  })

  it('Tab wraps inside Settings past its hidden sections, and comes back in from <body>', async () => {
    const user = userEvent.setup()
    await renderApp()
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const close = within(dialog).getByRole('button', { name: 'Close' })
    // the Models section's last control; Agent, Gateway and Appearance follow it, hidden
    within(dialog).getByLabelText('Thinking level').focus()
    await user.keyboard('{Tab}')
    expect(close).toHaveFocus()
    await user.keyboard('{Shift>}{Tab}{/Shift}')
    expect(within(dialog).getByLabelText('Thinking level')).toHaveFocus()
    ;(document.activeElement as HTMLElement).blur()
    await user.keyboard('{Tab}')
    expect(close).toHaveFocus()
  })

  it('removing an endpoint moves focus to the next one’s Edit, the last one to the form — not to <body>', async () => {
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
    const entry = (port: number) => ({ baseUrl: `http://127.0.0.1:${port}/v1`, api: 'openai-completions', models: [{ id: 'm1' }] })
    await bridge.settingsSet({ patch: { models: { providers: { one: entry(9991), two: entry(9992) } }, agents: { defaults: { model: { primary: 'one/m1' } } } } })
    await renderApp({}, bridge)
    const user = userEvent.setup()
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    within(dialog).getByRole('button', { name: 'Remove one' }).focus()
    await user.keyboard('{Enter}')
    await screen.findByRole('alertdialog', { name: 'Remove endpoint?' })
    await user.keyboard('{Tab}{Enter}') // from Cancel to Remove endpoint
    await waitFor(() => expect(within(dialog).queryByRole('button', { name: 'Remove one' })).not.toBeInTheDocument())
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Edit two' })).toHaveFocus())
    within(dialog).getByRole('button', { name: 'Remove two' }).focus()
    await user.keyboard('{Enter}')
    await screen.findByRole('alertdialog', { name: 'Remove endpoint?' })
    await user.keyboard('{Tab}{Enter}')
    await waitFor(() => expect(within(dialog).queryByRole('list', { name: 'Configured endpoints' })).not.toBeInTheDocument())
    await waitFor(() => expect(within(dialog).getByLabelText('Base URL')).toHaveFocus())
  })

  it('removing a key leaves focus in its key field — not on <body>', async () => {
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
    await bridge.settingsSet({ patch: { models: { providers: { anthropic: { apiKey: 'sk-ant-test' } } } } })
    await renderApp({}, bridge)
    const user = userEvent.setup()
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    within(dialog).getByRole('button', { name: 'Remove Anthropic key' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(within(dialog).getByLabelText('Anthropic API key not set')).toBeInTheDocument())
    await waitFor(() => expect(within(dialog).getByLabelText('Anthropic API key')).toHaveFocus())
  })

  it('the endpoint form’s model rows: Add a model focuses the new row, Remove moves to the row in its place — not to <body>', async () => {
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
    const entry = { baseUrl: 'http://127.0.0.1:9991/v1', api: 'openai-completions', models: [{ id: 'a' }, { id: 'b' }] }
    await bridge.settingsSet({ patch: { models: { providers: { one: entry } }, agents: { defaults: { model: { primary: 'one/a' } } } } })
    await renderApp({}, bridge)
    const user = userEvent.setup()
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    within(dialog).getByRole('button', { name: 'Edit one' }).focus()
    await user.keyboard('{Enter}')
    const form = within(dialog).getByRole('group', { name: 'Edit endpoint one' })
    const models = within(form).getByRole('list', { name: 'Models' })
    within(form).getByRole('button', { name: 'Add a model' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(within(within(models).getByRole('listitem', { name: 'Model 3' })).getByLabelText('Model id')).toHaveFocus())
    await user.keyboard('c')
    within(models).getByRole('button', { name: 'Remove model b' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(within(models).queryByRole('button', { name: 'Remove model b' })).not.toBeInTheDocument())
    // "c" took b's place
    expect(within(within(models).getByRole('listitem', { name: 'Model 2' })).getByLabelText('Model id')).toHaveFocus()
    expect(document.activeElement).toHaveValue('c')
  })
})
