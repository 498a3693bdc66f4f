import crypto from 'node:crypto';

/** What the hub promises about a file: its size and, where it says, a checksum of its bytes. */
export interface FileExpectation {
  size?: number;
  checksum?: { algorithm: 'sha256' | 'git-sha1'; hex: string };
}

function parseEtag(value: string | null): FileExpectation['checksum'] {
  const hex = value?.replace(/^W\//, '').replace(/"/g, '').trim().toLowerCase();
  if (!hex) return undefined;
  // LFS files (the ONNX weights) carry the sha256 of their content; small git files the git blob sha1.
  if (/^[0-9a-f]{64}$/.test(hex)) return { algorithm: 'sha256', hex };
  if (/^[0-9a-f]{40}$/.test(hex)) return { algorithm: 'git-sha1', hex };
  return undefined;
}

/**
 * From the hub's answer to `resolve/main/<file>`: a redirect to a CDN carries X-Linked-Size and
 * X-Linked-Etag (the LFS object's size and sha256); a file served directly carries its git ETag
 * and Content-Length. A CDN's own ETag means nothing to us, so only the first hop's is used.
 */
export function expectationFrom(firstHop: Headers, redirected: boolean, finalHop: Headers, resumedFrom: number): FileExpectation {
  const linkedSize = Number(firstHop.get('x-linked-size') ?? NaN);
  const checksum = parseEtag(firstHop.get('x-linked-etag')) ?? (redirected ? undefined : parseEtag(firstHop.get('etag')));
  let size: number | undefined = Number.isFinite(linkedSize) ? linkedSize : undefined;
  if (size === undefined) {
    const total = /\/(\d+)$/.exec(finalHop.get('content-range') ?? '')?.[1];
    const length = finalHop.get('content-length');
    if (total) size = Number(total);
    else if (length !== null && !finalHop.get('content-encoding')) size = resumedFrom + Number(length);
  }
  return { size, checksum };
}

/** A running hash in the form the expectation names; git's blob hash needs the size up front. */
export function checksumHasher(expect: FileExpectation): crypto.Hash | undefined {
  if (!expect.checksum) return undefined;
  if (expect.checksum.algorithm === 'sha256') return crypto.createHash('sha256');
  if (expect.size === undefined) return undefined;
  return crypto.createHash('sha1').update(`blob ${expect.size}\0`);
}
