/** Largest request body accepted (413 payload_too_large above it); a 2,500-word story is about 20 KiB. */
export const BODY_LIMIT = 256 * 1024;
