import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '../api/errors'
import { ATTACHMENT_LIMITS, MESSAGE_ATTACHMENTS_MAX_BYTES } from '../../shared/attachments'
import {
  inboundMediaDir,
  loadImages,
  messageWithAttachments,
  normalizeAttachments,
  sanitizeFileName,
  saveAttachments,
  sniffImage,
} from './attachments'

// a real 1×1 PNG
const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64')

function errOf(fn: () => unknown): ApiError {
  try {
    fn()
  } catch (err) {
    return err as ApiError
  }
  throw new Error('did not throw')
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe('sniffImage', () => {
  it('knows png, jpeg, gif and webp by their magic bytes, nothing else', () => {
    expect(sniffImage(PNG_1x1)).toBe('image/png')
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('image/jpeg')
    expect(sniffImage(Buffer.from('GIF89a....'))).toBe('image/gif')
    expect(sniffImage(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))).toBe('image/webp')
    expect(sniffImage(Buffer.from('hello world'))).toBeUndefined()
    expect(sniffImage(Buffer.alloc(0))).toBeUndefined()
  })
})

describe('sanitizeFileName', () => {
  it('keeps only the last path segment, strips control characters, falls back when nothing is left', () => {
    expect(sanitizeFileName('../../etc/passwd', 'f')).toBe('passwd')
    expect(sanitizeFileName('..\\..\\win.ini', 'f')).toBe('win.ini')
    expect(sanitizeFileName('a\u0000b\nc.txt', 'f')).toBe('abc.txt')
    expect(sanitizeFileName('..', 'f')).toBe('f')
    expect(sanitizeFileName('dir/', 'f')).toBe('f')
    expect(sanitizeFileName(42, 'f')).toBe('f')
    expect(sanitizeFileName('x'.repeat(500), 'f')).toHaveLength(200)
  })
})

describe('normalizeAttachments', () => {
  it('accepts the OpenClaw shape and the Anthropic source shape; drops items without content', () => {
    const out = normalizeAttachments([
      { type: 'image', mimeType: 'image/png', fileName: 'dot.png', content: b64(PNG_1x1) },
      { source: { type: 'base64', media_type: 'image/png', data: b64(PNG_1x1) } },
      { type: 'file', fileName: 'notes.txt', mimeType: 'text/plain', content: b64('hello') },
      { type: 'image', fileName: 'empty.png' },
      { content: '' },
    ])
    expect(out.map((a) => [a.fileName, a.mimeType, a.image, a.bytes.length])).toEqual([
      ['dot.png', 'image/png', true, PNG_1x1.length],
      ['attachment-2.png', 'image/png', true, PNG_1x1.length],
      ['notes.txt', 'text/plain', false, 5],
    ])
  })

  it('accepts a data URL as content', () => {
    const [a] = normalizeAttachments([{ content: `data:image/png;base64,${b64(PNG_1x1)}` }])
    expect(a.image).toBe(true)
    expect(a.bytes.equals(PNG_1x1)).toBe(true)
  })

  it('the bytes decide: a declared image that is not one is a plain file; an undeclared png is an image', () => {
    const [fake, real] = normalizeAttachments([
      { mimeType: 'image/png', fileName: 'fake.png', content: b64('not an image') },
      { mimeType: 'application/octet-stream', fileName: 'x.bin', content: b64(PNG_1x1) },
    ])
    expect(fake).toMatchObject({ image: false, mimeType: 'application/octet-stream', fileName: 'fake.png' })
    expect(real).toMatchObject({ image: true, mimeType: 'image/png' })
  })

  it('bad base64 is INVALID_REQUEST naming the item', () => {
    const e = errOf(() => normalizeAttachments([{ content: b64('ok') }, { fileName: 'bad.txt', content: 'not*base64!' }]))
    expect(e.code).toBe('INVALID_REQUEST')
    expect(e.message).toBe('attachments[1] (bad.txt): content is not valid base64')
    expect(errOf(() => normalizeAttachments([{ content: 42 }])).message).toMatch(/attachments\[0\]: content must be a base64 string/)
    expect(errOf(() => normalizeAttachments([{ source: { type: 'url', data: 'http://x' } }])).code).toBe('INVALID_REQUEST')
    expect(errOf(() => normalizeAttachments(['x'])).message).toMatch(/attachments\[0\] must be an object/)
  })

  it('oversize items are INVALID_REQUEST with the limit in the message (images 6 MB, files 18 MB)', () => {
    const bigImage = Buffer.concat([PNG_1x1, Buffer.alloc(ATTACHMENT_LIMITS.maxImageBytes)])
    const e1 = errOf(() => normalizeAttachments([{ fileName: 'big.png', content: b64(bigImage) }]))
    expect(e1.code).toBe('INVALID_REQUEST')
    expect(e1.message).toMatch(/big\.png\) is an image larger than the 6 MB image limit/)
    // the same size as a non-image file is fine
    expect(normalizeAttachments([{ content: b64(Buffer.alloc(ATTACHMENT_LIMITS.maxImageBytes + 10, 1)) }])).toHaveLength(1)
    const e2 = errOf(() => normalizeAttachments([{ content: b64(Buffer.alloc(ATTACHMENT_LIMITS.maxBytes + 1, 1)) }]))
    expect(e2.code).toBe('INVALID_REQUEST')
    expect(e2.message).toMatch(/larger than the 18 MB attachment limit/)
  })

  it('attachments together over the per-message total are INVALID_REQUEST (IPC has no frame limit)', () => {
    const half = b64(Buffer.alloc(MESSAGE_ATTACHMENTS_MAX_BYTES / 2, 1))
    // exactly the total is fine
    expect(normalizeAttachments([{ content: half }, { content: half }])).toHaveLength(2)
    const e = errOf(() => normalizeAttachments([{ content: half }, { content: half }, { fileName: 'c.txt', content: b64('x') }]))
    expect(e.code).toBe('INVALID_REQUEST')
    expect(e.message).toMatch(/together are larger than the 18 MB per-message limit \(at attachments\[2\] \(c\.txt\)\)/)
  })

  it('more than maxCount items is INVALID_REQUEST', () => {
    const many = Array.from({ length: ATTACHMENT_LIMITS.maxCount + 1 }, () => ({ content: b64('x') }))
    expect(errOf(() => normalizeAttachments(many)).message).toMatch(/too many attachments/)
  })
})

describe('saveAttachments', () => {
  it('writes 0600 files under <stateDir>/media/inbound (0700) with a uuid name; images load back as ImageContent', () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-att-'))
    dirs.push(stateDir)
    const decoded = normalizeAttachments([
      { fileName: '../../evil.png', content: b64(PNG_1x1) },
      { fileName: 'notes.txt', mimeType: 'text/plain', content: b64('hello') },
    ])
    const saved = saveAttachments(stateDir, decoded)
    const dir = inboundMediaDir(stateDir)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    for (const s of saved) {
      expect(path.dirname(s.path)).toBe(dir)
      expect(path.basename(s.path)).toMatch(/^[0-9a-f-]{36}\.(png|txt)$/)
      expect(fs.statSync(s.path).mode & 0o777).toBe(0o600)
    }
    expect(saved[0]).toMatchObject({ fileName: 'evil.png', image: true, sizeBytes: PNG_1x1.length })
    expect(fs.readFileSync(saved[1].path, 'utf8')).toBe('hello')
    expect(loadImages(saved)).toEqual([{ type: 'image', data: b64(PNG_1x1), mimeType: 'image/png' }])
    const text = messageWithAttachments('look', saved)
    expect(text.startsWith('look\n\n')).toBe(true)
    expect(text).toContain(`[File attached: notes.txt (text/plain, 5 bytes) saved at ${saved[1].path}]`)
    expect(text).toContain(`[Image attached: evil.png (image/png, ${PNG_1x1.length} bytes) saved at ${saved[0].path}]`)
    expect(messageWithAttachments('', saved.slice(1))).toBe(`[File attached: notes.txt (text/plain, 5 bytes) saved at ${saved[1].path}]`)
  })

  it('a write failure is UNAVAILABLE and leaves nothing behind', () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-att-'))
    dirs.push(stateDir)
    fs.writeFileSync(path.join(stateDir, 'media'), 'a file where the dir should be')
    const e = errOf(() => saveAttachments(stateDir, normalizeAttachments([{ content: b64('x') }])))
    expect(e.code).toBe('UNAVAILABLE')
  })
})
