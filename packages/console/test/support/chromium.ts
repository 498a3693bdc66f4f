// Shared with the API's browser tests (the OAuth sign-in and consent pages).
export { launchChromium, requireChromium, waitForShown } from '@ams/testing/chromium';
