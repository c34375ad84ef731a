/**
 * Attachment limits the gateway advertises (hello-ok v4 `policy.attachments`) and the runtime enforces.
 * Sizes are of the decoded bytes of one attachment.
 */
export const ATTACHMENT_LIMITS = {
  /** any one attachment */
  maxBytes: 20 * 1024 * 1024,
  /** any one image (images are sent to the model inline) */
  maxImageBytes: 6 * 1024 * 1024,
  /** attachments per message */
  maxCount: 32,
} as const
