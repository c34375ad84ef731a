// The theme's text greys: muted and faint are distinct steps, and each reads at WCAG AA (4.5:1) on every
// background and soft tint it can sit on, in both themes (a contrast fix once made them the same grey).
import { describe, expect, it } from 'vitest'

// the renderer's types know no node:fs: read the app's sheet from the checkout (as Inspector.test.tsx does)
const NODE_FS: string = 'node:fs'

function tokens(css: string, selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`)
  const body = css.slice(start, css.indexOf('\n}', start))
  const out: Record<string, string> = {}
  for (const m of body.matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})\b/gi)) out[m[1]] = m[2]
  return out
}

function luminance(hex: string): number {
  const n = parseInt(hex.slice(1), 16)
  const [r, g, b] = [n >> 16, (n >> 8) & 255, n & 255].map((v) => {
    const c = v / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)]
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05)
}

const BACKGROUNDS = ['--bg', '--bg-subtle', '--bg-sunken', '--bg-hover', '--bg-elevated', '--code-bg', '--user-bubble', '--accent-soft', '--ok-soft', '--warn-soft', '--err-soft', '--run-soft']

describe('theme text tokens', async () => {
  const fs = (await import(/* @vite-ignore */ NODE_FS)) as { readFileSync: (path: string, enc: 'utf8') => string }
  const css = fs.readFileSync('src/renderer/src/styles.css', 'utf8')
  const light = tokens(css, ':root')
  const themes = { light, dark: { ...light, ...tokens(css, "[data-theme='dark']") } }

  for (const [name, t] of Object.entries(themes)) {
    it(`${name}: muted and faint are distinct, faint the fainter, both 4.5:1 on every background`, () => {
      expect(t['--fg-faint']).toBeDefined()
      expect(t['--fg-faint']).not.toBe(t['--fg-muted'])
      expect(contrast(t['--fg-faint'], t['--bg'])).toBeLessThan(contrast(t['--fg-muted'], t['--bg']))
      const low = BACKGROUNDS.flatMap((bg) =>
        ['--fg-muted', '--fg-faint'].map((fg) => ({ fg, bg, ratio: Math.round(contrast(t[fg], t[bg]) * 100) / 100 })).filter((c) => c.ratio < 4.5),
      )
      expect(low).toEqual([])
    })
  }
})
