import net from 'node:net';
import { addressRefusal, AddressPolicy } from './address-policy';

// Names that always mean this machine or a private network; cloud metadata services answer on some.
const LOOPBACK_NAMES = /(^|\.)localhost$/;
const PRIVATE_NAMES = /(^|\.)(internal|local|localdomain|home\.arpa)$|^metadata$|^instance-data$/;

/**
 * Why a webhook URL is refused when it is registered (422), or null. Only what the URL itself shows:
 * credentials, and a host that is a non-public IP literal (in any spelling the URL parser accepts:
 * 2130706433, 0x7f.1, [::ffff:127.0.0.1]) or a local name. A public name can still resolve to a
 * private address later, so the delivery-time check on the connected address stays the guard.
 */
export function webhookTargetRefusal(raw: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a valid https URL';
  }
  if (url.username || url.password) return 'must not contain credentials (user:password@); put a secret in `secret` instead';
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (net.isIP(host)) {
    return addressRefusal(host, policy) ? 'must point to a public address (not loopback, private, link-local or metadata)' : null;
  }
  if (LOOPBACK_NAMES.test(host)) return policy.allowLoopback ? null : 'must point to a public address (not localhost)';
  if (PRIVATE_NAMES.test(host)) return 'must point to a public host (not a local or internal name)';
  return null;
}

/**
 * The URL as responses, the console and logs show it: user:password@ and every query value
 * replaced (receivers often take a token in the query string, `?token=...`); names and the path
 * stay, so the owner still recognises the endpoint. The stored URL keeps them for delivery.
 */
export function redactUrlSecrets(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  if (!url.username && !url.password && !url.search) return raw;
  if (url.username || url.password) {
    url.username = 'redacted';
    url.password = '';
  }
  if (url.search) {
    const names = [...new Set(url.searchParams.keys())];
    url.search = names.map((name) => `${encodeURIComponent(name)}=redacted`).join('&');
  }
  return url.toString();
}
