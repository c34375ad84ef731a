import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ATTACHMENT_LIMITS } from '../../../shared/attachments'
import { LONG, renderApp, settle } from '../test-utils'

const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const bytesOf = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
const png = (name = 'dot.png') => new File([bytesOf(PNG_B64)], name, { type: 'image/png' })
const text = (name: string, body: string) => new File([body], name, { type: 'text/plain' })
/** a file that claims `size` bytes without holding them (the composer must refuse it without reading it) */
function sized<T extends File>(f: T, size: number): T {
  Object.defineProperty(f, 'size', { value: size })
  return f
}

type SendParams = { message: string; queueMode?: string; attachments?: Array<{ type: string; mimeType: string; fileName: string; content: string }> }
let urls = 0
const created = vi.fn((_: Blob) => `blob:loopdesk/${++urls}`)
const revoked = vi.fn((_: string) => undefined)

beforeEach(() => {
  localStorage.clear()
  urls = 0
  created.mockClear()
  revoked.mockClear()
  // jsdom has no object URLs
  Object.assign(URL, { createObjectURL: created, revokeObjectURL: revoked })
})
afterEach(() => vi.restoreAllMocks())

const picker = () => screen.getByLabelText('Choose files to attach') as HTMLInputElement
const chips = () => screen.queryByRole('list', { name: 'Attachments' })
const sends = (bridge: { calls: Array<{ name: string; params: unknown }> }) => bridge.calls.filter((c) => c.name === 'send').map((c) => c.params as SendParams)
const log = () => screen.getByRole('log', { name: 'Conversation' })

describe('composer attachments', () => {
  it('pick → chips (name, size, image thumbnail) → send carries them; chips clear, thumbnails are revoked', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    await user.upload(picker(), [png(), text('notes.txt', 'hello notes')])
    const list = await screen.findByRole('list', { name: 'Attachments' })
    const items = within(list).getAllByRole('listitem')
    expect(items.map((li) => li.textContent)).toEqual(['dot.png70 B', 'notes.txt11 B'])
    expect(items[0].querySelector('img')).toHaveAttribute('src', 'blob:loopdesk/1')
    expect(items[1].querySelector('img')).toBeNull()
    expect(within(list).getByRole('button', { name: 'Remove attachment notes.txt' })).toBeEnabled()

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'what is this?{Enter}')
    await waitFor(() => expect(sends(bridge)).toHaveLength(1))
    expect(sends(bridge)[0]).toMatchObject({
      message: 'what is this?',
      attachments: [
        { type: 'image', mimeType: 'image/png', fileName: 'dot.png', content: PNG_B64 },
        { type: 'file', mimeType: 'text/plain', fileName: 'notes.txt', content: btoa('hello notes') },
      ],
    })
    await waitFor(() => expect(chips()).toBeNull())
    expect(revoked).toHaveBeenCalledWith('blob:loopdesk/1')
    // the local echo names the attachments the way the transcript will; no bytes in the page
    const row = within(log()).getByText(/what is this\?/, { selector: '.user-text' })
    expect(row.textContent).toBe('what is this?\n\n[Image attached: dot.png (image/png, 70 bytes)]\n[File attached: notes.txt (text/plain, 11 bytes)]')
    expect(document.body.innerHTML).not.toContain(PNG_B64)
    // history replaces the echo (same row, now with the saved paths): still one user row
    await waitFor(() => expect(row.textContent).toMatch(/dot\.png \(image\/png, 70 bytes\) saved at ~\/\.loopdesk\/media\/inbound\/\S+\.png\]/), LONG)
    expect(log().querySelectorAll('.msg-user')).toHaveLength(1)
    expect(document.body.innerHTML).not.toContain(PNG_B64)
  })

  it('a message may be only attachments (empty text)', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    const send = screen.getByRole('button', { name: 'Send' })
    expect(send).toBeDisabled()
    await user.upload(picker(), text('data.csv', 'a,b\n1,2\n'))
    await waitFor(() => expect(send).toBeEnabled())
    await user.click(send)
    await waitFor(() => expect(sends(bridge)).toHaveLength(1))
    expect(sends(bridge)[0]).toMatchObject({ message: '', attachments: [{ type: 'file', fileName: 'data.csv' }] })
    expect(await within(log()).findByText(/^\[File attached: data\.csv/, { selector: '.user-text' })).toBeInTheDocument()
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
  })

  it('remove drops a chip (and its thumbnail); it is not sent', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    await user.upload(picker(), [png(), text('keep.txt', 'keep')])
    await user.click(await screen.findByRole('button', { name: 'Remove attachment dot.png' }))
    expect(revoked).toHaveBeenCalledWith('blob:loopdesk/1')
    expect(within(chips()!).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['keep.txt4 B'])
    await user.click(screen.getByRole('button', { name: 'Remove attachment keep.txt' }))
    expect(chips()).toBeNull()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'just text{Enter}')
    await waitFor(() => expect(sends(bridge)).toHaveLength(1))
    expect(sends(bridge)[0].attachments).toBeUndefined()
  })

  it('refuses, with the file and the limit named, what the runtime would refuse — without reading it', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    const readData = vi.spyOn(FileReader.prototype, 'readAsDataURL')
    const readBuf = vi.spyOn(FileReader.prototype, 'readAsArrayBuffer')
    const huge = sized(text('huge.bin', 'x'), ATTACHMENT_LIMITS.maxBytes + 1)
    await user.upload(picker(), huge)
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('“huge.bin” (18,874,369 bytes) is larger than the 18 MB limit for one attachment.')
    expect(readBuf).not.toHaveBeenCalled()
    expect(readData).not.toHaveBeenCalled()
    expect(chips()).toBeNull()

    // an image is checked against the image limit (by its bytes, not its name)
    await user.upload(picker(), [sized(png('photo.bin'), 7 * 1024 * 1024), sized(text('fine.log', 'x'), 7 * 1024 * 1024)])
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('“photo.bin” (7 MB) is an image larger than the 6 MB image limit.'))
    expect(within(chips()!).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['fine.log7 MB'])

    // together, one message carries at most one maximal attachment's worth (one gateway frame)
    await user.upload(picker(), sized(text('more.log', 'x'), 12 * 1024 * 1024))
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('“more.log” (12 MB) would bring this message’s attachments to 19 MB, over the 18 MB one message can carry.'))

    // at most maxCount per message: the rest are named
    await user.click(screen.getByRole('button', { name: 'Remove attachment fine.log' }))
    const many = Array.from({ length: ATTACHMENT_LIMITS.maxCount + 2 }, (_, i) => text(`f${i + 1}.txt`, 'x'))
    await user.upload(picker(), many)
    await waitFor(() => expect(within(chips()!).getAllByRole('listitem')).toHaveLength(ATTACHMENT_LIMITS.maxCount))
    expect(screen.getByRole('alert')).toHaveTextContent('Not added: “f33.txt”, “f34.txt”. A message can carry at most 32 attachments.')
    await user.click(screen.getByRole('button', { name: 'Dismiss attachment messages' }))
    expect(screen.queryByRole('alert')).toBeNull()
    expect(readData).not.toHaveBeenCalled()
    expect(sends(bridge)).toHaveLength(0)
  })

  it('paste attaches the clipboard’s files instead of inserting text; drop on the conversation attaches too', async () => {
    await renderApp()
    const box = screen.getByRole('textbox', { name: 'Message' })
    const pasted = fireEvent.paste(box, { clipboardData: { files: [png('image.png')], types: ['Files'], getData: () => '' } })
    expect(pasted).toBe(false) // default prevented: no text inserted
    const list = await screen.findByRole('list', { name: 'Attachments' })
    expect(within(list).getByText('image.png')).toBeInTheDocument()
    expect(box).toHaveValue('')
    // a plain text paste is left alone
    expect(fireEvent.paste(box, { clipboardData: { files: [], types: ['text/plain'], getData: () => 'hi' } })).toBe(true)

    const dt = { files: [text('dropped.md', '# hi')], types: ['Files'], dropEffect: 'none' }
    fireEvent.dragEnter(log(), { dataTransfer: dt })
    expect(document.querySelector('.drop-overlay')).not.toBeNull()
    fireEvent.dragOver(log(), { dataTransfer: dt })
    fireEvent.drop(log(), { dataTransfer: dt })
    await waitFor(() => expect(within(list).getByText('dropped.md')).toBeInTheDocument())
    expect(document.querySelector('.drop-overlay')).toBeNull()
  })

  it('a failed send keeps the chips and the text; the failed row says where they are; sending again works', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    const send = bridge.send.bind(bridge)
    bridge.send = async (p) => {
      bridge.calls.push({ name: 'send', params: p })
      return { ok: false, error: { code: 'UNAVAILABLE', message: 'the gateway is unreachable' } }
    }
    await user.upload(picker(), png())
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'see this{Enter}')
    const alert = await within(log()).findByRole('alert')
    expect(alert).toHaveTextContent('Not sent: the gateway is unreachable The message and its attachments are still in the composer.')
    expect(within(alert).queryByRole('button', { name: 'Retry' })).toBeNull()
    expect(box).toHaveValue('see this')
    expect(within(chips()!).getByText('dot.png')).toBeInTheDocument()
    expect(revoked).not.toHaveBeenCalled()

    bridge.send = send
    await user.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => expect(sends(bridge)).toHaveLength(2))
    expect(sends(bridge)[1]).toMatchObject({ message: 'see this', attachments: [{ fileName: 'dot.png', content: PNG_B64 }] })
    await waitFor(() => expect(chips()).toBeNull())
    expect(box).toHaveValue('')
  })

  it('a file that cannot be read when sending stays attached with the reason; nothing is sent', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    await user.upload(picker(), text('gone.txt', 'soon deleted'))
    await screen.findByRole('list', { name: 'Attachments' })
    vi.spyOn(FileReader.prototype, 'readAsDataURL').mockImplementation(function (this: FileReader) {
      Object.defineProperty(this, 'error', { value: new DOMException('the file was removed', 'NotFoundError') })
      setTimeout(() => this.onerror?.(new ProgressEvent('error') as ProgressEvent<FileReader>))
    })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'read it{Enter}')
    expect(await screen.findByRole('alert')).toHaveTextContent('“gone.txt” could not be read: the file was removed')
    expect(sends(bridge)).toHaveLength(0)
    expect(within(chips()!).getByText('gone.txt')).toBeInTheDocument()
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('read it')
  })

  it('while a run is active, Queue carries the attachments (the queue names them)', async () => {
    const { bridge } = await renderApp({ tickMs: 5, scripts: [{ steps: [{ kind: 'untilAborted' }] }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'go{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Queue' })).toBeInTheDocument())
    await user.upload(picker(), png())
    await screen.findByRole('list', { name: 'Attachments' })
    expect(screen.getByRole('button', { name: 'Steer' })).toHaveAttribute('title', expect.stringMatching(/images reach it as a saved file path/))
    await user.click(screen.getByRole('button', { name: 'Queue' }))
    await waitFor(() => expect(sends(bridge)).toHaveLength(2))
    expect(sends(bridge)[1]).toMatchObject({ message: '', queueMode: 'followup', attachments: [{ type: 'image', fileName: 'dot.png' }] })
    const queue = await screen.findByRole('region', { name: 'Queued messages' })
    expect(within(queue).getByText(/\[Image attached: dot\.png \(image\/png, 70 bytes\)/)).toBeInTheDocument()
    await waitFor(() => expect(chips()).toBeNull())
    await act(() => bridge.abort({ sessionKey: 'agent:main:main' }))
  })

  it('drafts persist their text only: no file bytes or names in storage, and a reload drops the attachments', async () => {
    const first = await renderApp()
    const user = userEvent.setup()
    await user.upload(picker(), [png(), text('secret.txt', 'TOP-SECRET-CONTENT')])
    await screen.findByRole('list', { name: 'Attachments' })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'half a thought')
    await settle(250)
    const stored = Object.keys(localStorage).map((k) => localStorage.getItem(k) ?? '').join('\n')
    expect(stored).toContain('half a thought')
    for (const bytes of [PNG_B64, 'TOP-SECRET-CONTENT', btoa('TOP-SECRET-CONTENT'), 'secret.txt', 'dot.png']) expect(stored).not.toContain(bytes)
    first.unmount()
    await renderApp()
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('half a thought')
    expect(chips()).toBeNull()
  })
})
