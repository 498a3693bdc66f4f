import type { Request, Response } from 'express';

/**
 * The cookie that ties an authorization request to the browser that began it: the sign-in and
 * consent forms are honoured only from that browser (with the request's CSRF token besides).
 * HttpOnly, SameSite=Lax (the client's redirect to /authorize is a top-level navigation), Secure
 * over https, sent only to /oauth/.
 */
const COOKIE = 'ams_oauth_browser';

export function setBrowserCookie(res: Response, publicUrl: string, secret: string): void {
  res.cookie(COOKIE, secret, { httpOnly: true, sameSite: 'lax', secure: publicUrl.startsWith('https:'), path: '/oauth/', maxAge: 10 * 60_000 });
}

export function browserSecret(req: Request): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}
