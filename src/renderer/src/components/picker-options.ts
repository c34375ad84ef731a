// What the header's model list shows (ModelList.tsx, a chunk of its own): kept out of ModelPicker.tsx, which
// first paint loads — a module shared with a lazy chunk is bundled whole into the entry (test/renderer-bundle.test.ts).
import type { ModelChoice } from '../../../shared/methods'

export interface PickerOption {
  /** null: back to the default model */
  ref: string | null
  label: string
  /** the model the session uses now (its choice, or the default when none) */
  current: boolean
  isDefault?: boolean
  /** chosen for the session but not usable (its provider was removed, or has no key) */
  unavailable?: boolean
}

export interface PickerGroup {
  provider: string
  options: PickerOption[]
}

/** What the picker lists: "Use default", then the usable models by provider (the config's order), then an unusable choice. */
export function pickerOptions(models: readonly ModelChoice[], defaultModel: string | undefined, override: string | undefined): { head: PickerOption; groups: PickerGroup[] } {
  const head: PickerOption = { ref: null, label: defaultModel ? `Use default model (${defaultModel})` : 'Use default model', current: !override }
  const groups: PickerGroup[] = []
  for (const m of models) {
    if (!m.configured) continue
    let g = groups.find((x) => x.provider === m.provider)
    if (!g) groups.push((g = { provider: m.provider, options: [] }))
    g.options.push({ ref: m.ref, label: m.ref === defaultModel ? `${m.id} (default)` : m.id, current: m.ref === override, isDefault: m.ref === defaultModel })
  }
  if (override && !groups.some((g) => g.options.some((o) => o.ref === override))) {
    groups.push({ provider: 'Not available', options: [{ ref: override, label: `${override} (unavailable)`, current: true, unavailable: true }] })
  }
  return { head, groups }
}
