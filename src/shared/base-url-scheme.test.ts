import { describe, expect, it } from 'vitest'
import { withScheme } from './base-url-scheme'

describe('withScheme', () => {
  it('withScheme: http:// for this machine and the local network, https:// for a public name, anything else as typed', () => {
    expect(withScheme('localhost:11434/v1')).toBe('http://localhost:11434/v1')
    expect(withScheme('192.168.1.20:8000/v1')).toBe('http://192.168.1.20:8000/v1')
    expect(withScheme('gpu-box:8080')).toBe('http://gpu-box:8080')
    expect(withScheme('gpu-box.local:11434/v1')).toBe('http://gpu-box.local:11434/v1')
    expect(withScheme('[::1]:1234/v1')).toBe('http://[::1]:1234/v1')
    expect(withScheme('api.example.com/v1')).toBe('https://api.example.com/v1')
    for (const typed of ['notaurl', 'http://127.0.0.1:1/v1', 'ftp://x.example/v1', 'has space.com', '']) expect(withScheme(typed)).toBe(typed)
  })
})
