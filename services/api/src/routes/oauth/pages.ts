import crypto from 'node:crypto';
import type { Response } from 'express';

/** HTML-escapes text for element content and quoted attributes. */
export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:3rem auto;background:#fff;border:1px solid #d8dbe2;border-radius:8px;padding:1.5rem 2rem}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=email],input[type=password],select{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #9aa1ae;border-radius:4px}
fieldset{border:1px solid #d8dbe2;border-radius:4px;margin:1rem 0}fieldset label{font-weight:400;display:flex;gap:.5rem;margin:.3rem 0}
.actions{display:flex;gap:.8rem;margin-top:1.2rem}button{font:inherit;padding:.5rem 1.2rem;border-radius:4px;border:1px solid #2f5bd3;background:#2f5bd3;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#2f5bd3}.error{background:#fdecec;border:1px solid #e3a1a1;padding:.5rem .8rem;border-radius:4px}
.muted{color:#5b6475;font-size:.9rem}code{overflow-wrap:anywhere}`;
const STYLE_HASH = crypto.createHash('sha256').update(STYLE).digest('base64');

/**
 * Sends a server-rendered page that works without JavaScript: no script may run, no other site may
 * frame it (clickjacking), and its forms may post only here (and, from the consent page, be
 * redirected to the client's registered redirect URI: `formTargets`).
 */
export function sendPage(res: Response, status: number, title: string, body: string, formTargets: string[] = []): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self' ${formTargets.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    })
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`);
}
