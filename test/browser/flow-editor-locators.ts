/**
 * Where the flow editor's parts are on the page, as a person finds them. Free of mocha, so the
 * benches that drive the editor (bench/console) can use it too.
 */
import type { Locator, Page } from 'playwright-core';

/** The side panel of the editor (the selected state, the flow's settings or the versions). */
export const details = (page: Page): Locator =>
  page.getByRole('complementary', { name: 'Details' });
