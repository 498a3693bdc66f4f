// A remark plugin for npm run docs:check: a relative link or image must point inside the
// repository (the folder remark runs in). remark-validate-links accepts a file that exists outside
// it, which a fresh clone would not have.
import path from 'node:path';

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export default function remarkLinksInsideRepo() {
  return (tree, file) => {
    const root = path.resolve(file.cwd);
    const from = path.resolve(file.cwd, file.dirname ?? '.');
    const walk = (node) => {
      if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && typeof node.url === 'string') {
        const url = node.url;
        if (url && !SCHEME.test(url) && !url.startsWith('#') && !url.startsWith('//')) {
          const target = url.startsWith('/') ? path.join(root, url) : path.resolve(from, decodeURI(url.split('#')[0]));
          const rel = path.relative(root, target);
          if (rel.startsWith('..') || path.isAbsolute(rel)) {
            file.message(`Link \`${url}\` points outside the repository`, node, 'remark-links-inside-repo:outside');
          }
        }
      }
      for (const child of node.children ?? []) walk(child);
    };
    walk(tree);
  };
}
