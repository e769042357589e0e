import type { FastifyReply } from 'fastify';
import { PAGE_CSP } from '../web/layout.js';

/**
 * The security headers of every HTML page this service answers (the console, the account pages
 * and the public site). `frame-ancestors 'none'` and X-Frame-Options say the same to old and new
 * browsers; nosniff is added to every answer in app.ts.
 */
export function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', PAGE_CSP)
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
}
