import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** The images the docs show, committed under docs/images/. */
const DOC_IMAGES = path.resolve(__dirname, '../../../../docs/images');

/** `npm run docs:screenshots` sets it: the browser test then writes the docs' images instead of checking them. */
const UPDATING_DOC_IMAGES = process.env.UPDATE_DOC_IMAGES === '1';

/**
 * The share of pixels that differ (any channel by more than 32 of 255) between two PNGs of the
 * same size, measured by the browser itself: no image library needed. Null when the sizes differ.
 */
async function pixelDifference(page: Page, a: Buffer, b: Buffer): Promise<number | null> {
  const toUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;
  return page.evaluate(
    async ([urlA, urlB]) => {
      const load = async (url: string) => {
        const image = new Image();
        image.src = url;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.naturalWidth;
        canvas.height = image.naturalHeight;
        const context = canvas.getContext('2d')!;
        context.drawImage(image, 0, 0);
        return context.getImageData(0, 0, canvas.width, canvas.height);
      };
      const [x, y] = await Promise.all([load(urlA!), load(urlB!)]);
      if (x.width !== y.width || x.height !== y.height) return null;
      let differing = 0;
      for (let i = 0; i < x.data.length; i += 4) {
        if ([0, 1, 2].some((c) => Math.abs(x.data[i + c]! - y.data[i + c]!) > 32)) differing++;
      }
      return differing / (x.width * x.height);
    },
    [toUrl(a), toUrl(b)],
  );
}

/**
 * Checks a docs image against what the page shows now (`shot`, the window as the docs show it), or
 * writes it when updating. The data of a run differs a little (times, scores), the layout must not.
 */
export async function checkDocImage(page: Page, image: string, shot: Buffer, maxDifference: number): Promise<void> {
  const committed = path.join(DOC_IMAGES, image);
  if (UPDATING_DOC_IMAGES) {
    fs.writeFileSync(committed, shot);
    return;
  }
  const difference = await pixelDifference(page, fs.readFileSync(committed), shot);
  const refresh = `docs/images/${image} no longer shows the console as it draws today: run \`npm run docs:screenshots\` and look at the result`;
  if (difference === null) throw new Error(`${refresh} (its size differs from the window's)`);
  if (difference > maxDifference) throw new Error(`${refresh} (${(difference * 100).toFixed(1)} % of its pixels differ, at most ${maxDifference * 100} % may)`);
}
