// The views not needed at first paint, each in a chunk of its own (see lib/lazy-view.tsx). The idle
// warm-up preloads them, so opening one later rarely waits.
import { lazyView } from './lib/lazy-view'

export const { View: SettingsView, preload: preloadSettings } = lazyView(() => import('./components/Settings').then((m) => m.SettingsDialog))
export const { View: InspectorView, preload: preloadInspector } = lazyView(() => import('./components/Inspector').then((m) => m.Inspector))
// opened with Ctrl/Cmd+F: its chunk kept what first paint loads under 500 kB (test/renderer-bundle.test.ts)
export const { View: FindBarView, preload: preloadFindBar } = lazyView(() => import('./components/FindBar').then((m) => m.FindBar))
// a browser the gateway no longer knows (its pairing was removed) waits for approval here; at start main.tsx imports it
export const { View: PairingWaitView } = lazyView(() => import('./components/PairingWait').then((m) => m.PairingWaitScreen))
export const { View: PairingRequestsView } = lazyView(() => import('./components/PairingPrompt').then((m) => m.PairingRequests))
export const { View: ModelListView, preload: preloadModelList } = lazyView(() => import('./components/ModelList').then((m) => m.ModelList))
export const { View: FileChangeLazyView, preload: preloadFileChange } = lazyView(() => import('./components/ToolFileView').then((m) => m.FileChangeView))
// the gateway's token changed (or was refused) under the page: main.tsx imports it at start
export const { View: TokenChangedView, preload: preloadTokenChanged } = lazyView(() => import('./components/TokenChanged').then((m) => m.TokenChangedScreen))
// the header's "Branched from …" of a forked session (first paint had no room for it: test/renderer-bundle.test.ts)
export const { View: ForkOriginView, preload: preloadForkOrigin } = lazyView(() => import('./components/ForkOrigin').then((m) => m.ForkOrigin))
export const { View: ConfigIssuesNoticeView } = lazyView(() => import('./components/ConfigIssuesNotice').then((m) => m.ConfigIssuesNotice))
// a run of many tool calls as one row (components/ToolGroup.tsx)
export const { View: ToolGroupView, preload: preloadToolGroup } = lazyView(() => import('./components/ToolGroup').then((m) => m.ToolGroupRow))
// several approvals waiting in the open session, together (App mounts it only then)
export const { View: ApprovalBatchView, preload: preloadApprovalBatch } = lazyView(() => import('./components/ApprovalBatch').then((m) => m.ApprovalBatch))
// approvals waiting in sessions other than the open one, above the message box (App mounts it only then)
export const { View: OtherApprovalsView, preload: preloadOtherApprovals } = lazyView(() => import('./components/OtherApprovals').then((m) => m.OtherApprovals))
// a session row's "…" menu (Sidebar.tsx)
export const { View: SessionMenuView, preload: preloadSessionMenu } = lazyView(() => import('./components/SessionMenu').then((m) => m.SessionMenu))
// a user message being edited in place (Messages.tsx)
export const { View: EditMessageView, preload: preloadEditMessage } = lazyView(() => import('./components/EditMessage').then((m) => m.EditMessage))
