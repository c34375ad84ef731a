// A loopdesk.json that cannot be used (a syntax error, a bad value) while a model is set up: the runtime keeps
// the last good config, but only Settings said so — a user who edited the file saw nothing change and no reason.
// The welcome card says it when no model is set up (Onboarding.tsx); this banner says it over the conversation.
// The notice itself is a chunk of its own (ConfigIssuesNotice.tsx: rare, and first paint stays under 500 kB).
import { useEffect } from 'react'
import { useAppStore, useController } from '../app-context'
import { LazyBoundary } from '../lib/lazy-view'
import { ConfigIssuesNoticeView } from '../lazy-views'
import { configIssuesOf } from './Onboarding'

export function ConfigIssuesBanner() {
  const controller = useController()
  const any = useAppStore('settings', (s) => configIssuesOf(s).length > 0)
  // a file edited in an editor (broken, or fixed) is seen when the user comes back to the window
  useEffect(() => {
    const onFocus = () => void controller.refreshConfigIssues()
    window.addEventListener('focus', onFocus)
    return () => window.removeEventListener('focus', onFocus)
  }, [controller])
  if (!any) return null
  return (
    <LazyBoundary name="Config problems">
      <ConfigIssuesNoticeView />
    </LazyBoundary>
  )
}
