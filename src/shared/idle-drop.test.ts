import { afterEach, expect, it, vi } from 'vitest'
import { idleDrop } from './idle-drop'

afterEach(() => void vi.useRealTimers())

it('drops once idle for its time since the last use, not before; armed again by the next use', () => {
  vi.useFakeTimers()
  const drop = vi.fn()
  const idle = idleDrop(1000, drop)
  vi.advanceTimersByTime(5000)
  expect(drop).not.toHaveBeenCalled() // never used: nothing to drop
  idle.touch()
  vi.advanceTimersByTime(600)
  idle.touch()
  vi.advanceTimersByTime(900)
  expect(drop).not.toHaveBeenCalled()
  vi.advanceTimersByTime(100)
  expect(drop).toHaveBeenCalledTimes(1)
  vi.advanceTimersByTime(5000)
  expect(drop).toHaveBeenCalledTimes(1)
  idle.touch()
  idle.cancel()
  vi.advanceTimersByTime(5000)
  expect(drop).toHaveBeenCalledTimes(1)
  idle.touch()
  vi.advanceTimersByTime(1000)
  expect(drop).toHaveBeenCalledTimes(2)
})
