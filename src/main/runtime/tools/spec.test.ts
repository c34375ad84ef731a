import { toToolDeclaration } from '@earendil-works/pi-ai'
import { describe, expect, it } from 'vitest'
import { TOOL_DEFINITIONS } from './catalog'
import { bindTool, toolDeclaration } from './spec'

const ctx = {} as Parameters<typeof bindTool>[1]

describe('toolDeclaration', () => {
  it("is pi's declaration, built once per built-in spec and shared by every run", () => {
    for (const def of TOOL_DEFINITIONS) {
      const first = bindTool(def, ctx)
      const second = bindTool(def, ctx)
      expect(toolDeclaration(first)).toEqual(toToolDeclaration(first))
      expect(toolDeclaration(second)).toBe(toolDeclaration(first))
      expect(JSON.stringify(toolDeclaration(first))).toBe(JSON.stringify(toToolDeclaration(first)))
    }
  })

  it('builds a fresh declaration for other tools and for bound tools whose fields were replaced', () => {
    const bound = bindTool(TOOL_DEFINITIONS[0], ctx)
    const changed = { ...bound, description: 'something else' }
    expect(toolDeclaration(changed)).toEqual(toToolDeclaration(changed))
    expect(toolDeclaration(changed)).not.toBe(toolDeclaration(changed))
    bound.description = 'edited in place'
    expect(toolDeclaration(bound).description).toBe('edited in place')
  })
})
