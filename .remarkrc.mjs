// npm run docs:check: every relative link and heading anchor in the repository's Markdown must
// resolve inside it (offline; no URL is fetched). `repository: false`: a clone may have no remote.
import remarkValidateLinks from 'remark-validate-links';
import remarkLinksInsideRepo from './scripts/remark-links-inside-repo.mjs';

export default { plugins: [[remarkValidateLinks, { repository: false }], remarkLinksInsideRepo] };
