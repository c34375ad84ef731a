// Browser mode against the real stack: the session's model in the header is a picker; choosing another model
// there makes the next reply come from it (the scripted server answers with the model it was asked for), and
// "Use default model" goes back. Keyboard only.
import { expect, test } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-model-picker-token-0123456789abcdef'
const env = useBrowserGateway(TOKEN, (req) => ({ text: `Reply from ${req.api === 'anthropic' ? 'mockant' : 'mock'} model ${req.body?.model}.` }))

test('pick another model in the header: the next reply comes from it; Use default model goes back', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  const log = page.getByRole('log', { name: 'Conversation' })
  await box.fill('first')
  await box.press('Enter')
  await expect(log.getByText('Reply from mock model m1.')).toBeVisible({ timeout: 20_000 })

  const picker = page.getByRole('button', { name: /^Model: mock\/m1 \(default\)/ })
  await expect(picker).toBeVisible()
  await picker.focus()
  await page.keyboard.press('Enter')
  const list = page.getByRole('listbox', { name: 'Model for this session' })
  await expect(list).toBeFocused()
  await expect(list.getByRole('group', { name: 'mockant' })).toBeVisible()
  // the list starts at the current choice (the default); End goes to the last model, mockant's c1
  await page.keyboard.press('End')
  await page.keyboard.press('Enter')
  await expect(list).toBeHidden()
  await expect(page.getByRole('button', { name: /^Model: mockant\/c1\. / })).toBeFocused()

  await box.fill('second')
  await box.press('Enter')
  await expect(log.getByText('Reply from mockant model c1.')).toBeVisible({ timeout: 20_000 })
  expect(env.model.requests.at(-1)?.api).toBe('anthropic')

  await page.getByRole('button', { name: /^Model: mockant\/c1\. / }).click()
  await page.getByRole('option', { name: /Use default model \(mock\/m1\)/ }).click()
  await expect(page.getByRole('button', { name: /^Model: mock\/m1 \(default\)/ })).toBeVisible()
  await box.fill('third')
  await box.press('Enter')
  await expect(log.getByText('Reply from mock model m1.')).toHaveCount(2, { timeout: 20_000 })
  expect(errors).toEqual([])
})

test('/model in the message box: a bare one says where the session stands and opens the picker; /model <ref> chooses it', async ({ page }) => {
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  // a session of its own (the first test's main session may have a choice left)
  await page.keyboard.press('Control+Shift+O')
  await expect(page.getByRole('button', { name: /^Model: mock\/m1 \(default\)/ })).toBeVisible()
  await box.fill('/model')
  await box.press('Enter')
  await expect(page.getByRole('listbox', { name: 'Model for this session' })).toBeFocused()
  await expect(page.getByText(/This session uses the default model, mock\/m1\./)).toBeVisible()
  await page.keyboard.press('Escape')
  await box.fill('/model mockant/c1')
  await box.press('Enter')
  await expect(page.getByText('This session now uses mockant/c1.')).toBeVisible()
  await expect(page.getByRole('button', { name: /^Model: mockant\/c1\. / })).toBeVisible()
  await box.fill('which model?')
  await box.press('Enter')
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('Reply from mockant model c1.')).toBeVisible({ timeout: 20_000 })
})
