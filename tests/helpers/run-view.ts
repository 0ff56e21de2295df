/** Driving the app's Run view in Chromium. */
import type { Page } from 'playwright-core';

/** Replace a chip field's values (contexts, concurrency, prefill) as a person would: remove each, type the new ones. */
export async function setChips(page: Page, field: string, values: string[]): Promise<void> {
  const chips = page.getByTestId(`chips-${field}`);
  while ((await chips.locator('li.chip').count()) > 0) await chips.locator('li.chip button').first().click();
  for (const v of values) {
    await chips.locator('input').fill(v);
    await chips.locator('input').press('Enter');
  }
}
