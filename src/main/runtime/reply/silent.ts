// The rule lives in shared/ (history rows need the same one): what the runtime imports from here.
export { isSilentPrefix, isSilentReply, SILENT_REPLY_TOKEN } from '../../../shared/silent-reply'
