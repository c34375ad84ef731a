// The endpoint form's errors about one field (Name, Base URL): marked on that field — aria-invalid, the message
// as its description — and the field focused, so a keyboard or screen-reader user lands where the fix goes
// (the message alone, under the buttons, left focus on Save and named no field to assistive technology).
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { renderApp } from '../test-utils'
import { preloadSettings } from '../lazy-views'

beforeAll(async () => {
  await preloadSettings()
})
beforeEach(() => localStorage.clear())

describe('endpoint form errors', () => {
  it('a bad name, then a bad URL: each marked on its field, which gets the focus; fixed, the mark goes', async () => {
    const user = userEvent.setup()
    await renderApp()
    await user.click(screen.getByRole('button', { name: 'Settings' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const form = within(within(dialog).getByRole('group', { name: 'New endpoint' }))
    const name = form.getByLabelText('Name')
    const url = form.getByLabelText('Base URL')
    const save = form.getByRole('button', { name: 'Save endpoint' })

    await user.clear(name)
    await user.type(name, 'bad name!')
    await user.clear(url)
    await user.type(url, 'not a url')
    await user.click(save)
    expect(name).toHaveAttribute('aria-invalid', 'true')
    expect(name).toHaveAccessibleDescription(/^Name: letters, digits/)
    expect(name).toHaveFocus()
    expect(url).not.toHaveAttribute('aria-invalid')

    await user.clear(name)
    await user.type(name, 'good')
    expect(name).not.toHaveAttribute('aria-invalid') // editing it clears the error
    await user.click(save)
    expect(url).toHaveAttribute('aria-invalid', 'true')
    expect(url).toHaveAccessibleDescription(/valid http\(s\) base URL/)
    expect(url).toHaveFocus()
    expect(name).not.toHaveAttribute('aria-invalid')
  })
})
