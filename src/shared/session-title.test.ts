import { describe, expect, it } from 'vitest'
import { attachmentLine, withAttachmentLines } from './attachments'
import { BARE_RESET_PROMPT, deriveSessionTitle, deriveSessionTitleOf, sessionTitle } from './session-title'

describe('deriveSessionTitle', () => {
  it('one line, whitespace collapsed, cut to 60 characters with an ellipsis', () => {
    expect(deriveSessionTitle('  Plan   the\n\nrelease  ')).toBe('Plan the release')
    const long = 'word '.repeat(30)
    const t = deriveSessionTitle(long)!
    expect(t).toHaveLength(60)
    expect(t.endsWith('…')).toBe(true)
    expect(deriveSessionTitle(' \n\t')).toBeUndefined()
    // what a bare /new sends names nothing
    expect(deriveSessionTitle(BARE_RESET_PROMPT)).toBeUndefined()
  })

  it('attachment reference lines are not the title; a message of only attachments is named after the first file', () => {
    const img = { image: true, fileName: 'shot (1).png', mimeType: 'image/png', sizeBytes: 10, path: '/s/media/inbound/x.png' }
    const doc = { image: false, fileName: 'notes.txt', mimeType: 'text/plain', sizeBytes: 3 }
    expect(deriveSessionTitle(withAttachmentLines('What is in this picture?', [attachmentLine(img)]))).toBe('What is in this picture?')
    expect(deriveSessionTitle(withAttachmentLines('', [attachmentLine(img), attachmentLine(doc)]))).toBe('shot (1).png')
    // the composer's echo (no saved path) gives the same title as the runtime's copy
    expect(deriveSessionTitle(withAttachmentLines('', [attachmentLine({ ...img, path: undefined })]))).toBe('shot (1).png')
  })

  it('from stored content: text blocks are separate lines (words never run together, an attachment block is still one)', () => {
    const img = { image: true, fileName: 'a.png', mimeType: 'image/png', sizeBytes: 10, path: '/s/a.png' }
    const text = (t: string) => ({ type: 'text', text: t })
    expect(deriveSessionTitleOf([text('Hello'), text('world')])).toBe('Hello world')
    expect(deriveSessionTitleOf([text('Look at this'), { type: 'image', data: 'x', mimeType: 'image/png' }, text(attachmentLine(img))])).toBe('Look at this')
    expect(deriveSessionTitleOf([text(attachmentLine(img))])).toBe('a.png')
    expect(deriveSessionTitleOf('plain string')).toBe('plain string')
    expect(deriveSessionTitleOf(undefined)).toBeUndefined()
    expect(deriveSessionTitleOf([{ type: 'image', data: 'x', mimeType: 'image/png' }])).toBeUndefined()
  })

  it('a message of only invisible characters names nothing, so the name falls back (not a blank title)', () => {
    expect(deriveSessionTitle('\uFEFF\u200B\u200B')).toBeUndefined()
    expect(deriveSessionTitle('\u200D\u2060 \u200E')).toBeUndefined()
    expect(sessionTitle({ key: 'agent:main:s-1', derivedTitle: deriveSessionTitle('\uFEFF\u200B') })).toBe('s-1')
    // invisible characters around words go; a joiner inside an emoji sequence stays
    expect(deriveSessionTitle('\u200BHello\uFEFF world')).toBe('Hello world')
    expect(deriveSessionTitle('👩\u200D💻 setup')).toBe('👩\u200D💻 setup')
  })

  it('bidi controls are dropped: an unclosed U+202E cannot turn the title (or the row around it) backwards', () => {
    expect(deriveSessionTitle('invoice \u202Efdp.exe')).toBe('invoice fdp.exe')
    expect(deriveSessionTitle('\u2067שלום\u2069 and \u200Fhi')).toBe('שלום and hi')
  })
})
