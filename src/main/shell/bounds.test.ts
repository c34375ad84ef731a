import { describe, expect, it } from 'vitest'
import { DEFAULT_SIZE, fitBounds, MIN_SIZE } from './bounds'

const primary = { x: 0, y: 0, width: 1920, height: 1040 }
const right = { x: 1920, y: 0, width: 1280, height: 1000 }

describe('fitBounds', () => {
  it('centres the default size on the primary display when nothing is saved', () => {
    expect(fitBounds(undefined, [primary])).toEqual({
      x: (1920 - DEFAULT_SIZE.width) / 2,
      y: (1040 - DEFAULT_SIZE.height) / 2,
      ...DEFAULT_SIZE,
    })
  })

  it('keeps a saved position that is on a display', () => {
    expect(fitBounds({ x: 100, y: 50, width: 1000, height: 700 }, [primary, right])).toEqual({ x: 100, y: 50, width: 1000, height: 700 })
    expect(fitBounds({ x: 2000, y: 10, width: 1000, height: 700 }, [primary, right])).toEqual({ x: 2000, y: 10, width: 1000, height: 700 })
  })

  it('moves a window from an unplugged monitor back to the primary display', () => {
    const b = fitBounds({ x: 2000, y: 10, width: 1000, height: 700 }, [primary])
    expect(b).toEqual({ x: 460, y: 170, width: 1000, height: 700 })
  })

  it('rejects a position whose title bar is off-screen or that is barely visible', () => {
    expect(fitBounds({ x: 100, y: -600, width: 1000, height: 700 }, [primary]).y).toBeGreaterThanOrEqual(0)
    const sliver = fitBounds({ x: 1900, y: 100, width: 1000, height: 700 }, [primary])
    expect(sliver.x! + sliver.width).toBeLessThanOrEqual(1920)
  })

  it('clamps size to the work area and pulls the window inside it', () => {
    const b = fitBounds({ x: 1500, y: 900, width: 5000, height: 3000 }, [primary])
    expect(b.width).toBe(1920)
    expect(b.height).toBe(1040)
    expect(b.x).toBe(0)
    expect(b.y).toBe(0)
  })

  it('never goes below the minimum size', () => {
    const b = fitBounds({ x: 10, y: 10, width: 10, height: 10 }, [primary])
    expect(b.width).toBe(MIN_SIZE.width)
    expect(b.height).toBe(MIN_SIZE.height)
  })

  it('works with displays at negative coordinates', () => {
    const left = { x: -1600, y: 0, width: 1600, height: 900 }
    expect(fitBounds({ x: -1500, y: 100, width: 800, height: 600 }, [primary, left])).toEqual({ x: -1500, y: 100, width: 800, height: 600 })
  })
})
