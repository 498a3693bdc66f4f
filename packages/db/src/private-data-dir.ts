import fs from 'node:fs';
import path from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export interface DataDirPrivacy {
  /** Entries other users could read, write or enter, now owner-only (a 0700 file made 0600 is not counted). */
  exposed: number;
  /** Entries it could not tighten (owned by another user, say), with the reason. */
  unfixable: { path: string; error: string }[];
}

/**
 * The embedded store holds every account's memories in plain files, so only this user may read
 * them. The umask makes whatever PGlite creates owner-only; the walk fixes what it does not
 * cover: PGlite unpacks its initial cluster with explicit 0666 modes, and a store made by an
 * earlier version was left 0666/0755. Directories become 0700 and files 0600. Symbolic links
 * are left alone (their mode means nothing and following one could leave DATA_DIR).
 */
export function makeDataDirPrivate(dir: string): DataDirPrivacy {
  process.umask(0o077);
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const result: DataDirPrivacy = { exposed: 0, unfixable: [] };
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    const wanted = st.isDirectory() ? DIR_MODE : FILE_MODE;
    if ((st.mode & 0o777) !== wanted) {
      try {
        fs.chmodSync(p, wanted);
        if (st.mode & 0o077) result.exposed++;
      } catch (err) {
        result.unfixable.push({ path: p, error: (err as Error).message });
      }
    }
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return result;
}
