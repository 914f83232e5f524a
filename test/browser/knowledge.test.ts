/**
 * The Knowledge pages in a real browser against the real service: a collection made by uploading a
 * real PDF (written by pdfkit) through the file input and through the drop zone, indexed by the
 * indexer process with the job's progress shown to the end, and searched, each hit naming its file
 * and page with the matched words highlighted.
 */
import { expect } from 'chai';
import { pdf } from '../support/knowledge-fixtures.ts';
import {
  checkA11y,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  screenshot,
  signIn,
  type ConsoleService,
} from './support.ts';

const MANUAL = [
  'Welcome to the bike shop manual. Opening hours are nine to five.',
  'Tyre repair: a punctured tyre is patched within one hour for ten euros.',
  'Rentals: an e-bike is rented by the day, with a helmet included.',
];

describe('knowledge pages in a browser', function () {
  this.timeout(180_000);
  let service: ConsoleService;

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when a PDF is uploaded by the file input and indexed, then the job shows its progress to the end and a search finds its page, with file, page and the words highlighted', async () => {
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.getByRole('navigation').getByRole('link', { name: 'Knowledge' }).click();
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
    // Unnamed, the upload waits for a name: the drop zone is shown disabled.
    await page.getByText('Name the collection to upload its documents.').waitFor();
    await checkA11y(page, 'knowledge without a name');
    await page.getByLabel('Collection name').fill('bike-manual');
    await page.getByLabel('Choose documents to upload').setInputFiles({
      name: 'manual.pdf',
      mimeType: 'application/pdf',
      buffer: await pdf(MANUAL),
    });
    await page.getByRole('heading', { name: /bike-manual/, level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Uploaded documents' }).getByText('manual.pdf').waitFor();
    await checkA11y(page, 'collection before indexing');

    await page.getByRole('button', { name: 'Start indexing' }).click();
    const job = page.getByRole('heading', { name: /^Job .*: (queued|running|succeeded)$/ });
    await job.first().waitFor();
    await page.getByRole('heading', { name: /^Job .*: succeeded$/ }).waitFor({ timeout: 120_000 });
    const bar = page.getByRole('progressbar');
    await page.getByText('1 of 1 files done').first().waitFor();
    expect(await bar.first().getAttribute('value')).to.equal('100');
    const files = page.getByRole('table').filter({ hasText: 'Files of the job' });
    await files.getByRole('row', { name: /manual\.pdf/ }).waitFor();
    await checkA11y(page, 'collection indexed');
    await screenshot(page, 'knowledge-indexed');

    const search = page.getByRole('search');
    await search.getByLabel('Search the collection').fill('punctured tyre');
    await search.getByRole('button', { name: 'Search' }).click();
    const hits = page.getByRole('list').filter({ hasText: 'manual.pdf, page 2' });
    await hits.waitFor();
    const first = hits.getByRole('listitem').first();
    expect(await first.textContent()).to.contain('manual.pdf, page 2');
    const marked = await first.locator('mark').allTextContents();
    expect(marked.map((m) => m.toLowerCase())).to.include.members(['punctured', 'tyre']);
    await checkA11y(page, 'search hits');
    await screenshot(page, 'knowledge-search');

    // Searched by meaning too: the collection names its vectors, each hit its two scores.
    await page
      .getByText(
        /^Searched by words and meaning: vectors of the embedded model \(offline, English\) \(local:use-lite-en\)\./,
      )
      .waitFor();
    await search.getByLabel('Search the collection').fill('can I borrow a bike for a day?');
    await search.getByLabel('Search by').selectOption('semantic');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText(/hits for “can I borrow a bike for a day\?” by semantic/).waitFor();
    const byMeaning = page.getByRole('list').filter({ hasText: 'manual.pdf, page 3' });
    const top = byMeaning.getByRole('listitem').first();
    await top.waitFor();
    expect(await top.textContent()).to.contain('manual.pdf, page 3');
    expect(await top.textContent()).to.match(/meaning: #1, similarity 0\.\d{3}/);
    // The passages a bot would not answer from say so: "gift cards" is far from every page.
    await search.getByLabel('Search the collection').fill('gift cards');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText(/hits for “gift cards” by semantic/).waitFor();
    expect(
      await page.getByText('below the relevance threshold: bots do not answer from it').count(),
    ).to.be.greaterThan(0);
    // Saving the threshold says so, and keeps the value shown.
    await page.getByLabel('Relevance threshold (0 to 1, empty: default)').fill('0.25');
    await page.getByRole('button', { name: 'Save search settings' }).click();
    await page.getByText('Saved.').waitFor();
    expect(
      await page.getByLabel('Relevance threshold (0 to 1, empty: default)').inputValue(),
    ).to.equal('0.25');
    await page.getByRole('heading', { name: 'Knowledge gaps' }).waitFor();
    await page.getByText('No unanswered questions').waitFor();
    await checkA11y(page, 'search by meaning');
    await screenshot(page, 'knowledge-search-meaning');
    expectNoCspViolations(page);
  });

  it('when a PDF is dropped on the drop zone of a new collection, then it is uploaded and can be indexed', async () => {
    const page = await service.newPage();
    await signIn(page, service.adminKey);
    await page.goto('/console/knowledge');
    await page.getByLabel('Collection name').fill('dropped-manual');
    const bytes = [...(await pdf(['Saddles and bells for every bike.']))];
    // A drop as the browser makes one: a DataTransfer holding the file.
    const transfer = await page.evaluateHandle((data) => {
      // The page's DataTransfer (this runs in the browser).
      const dt = new (globalThis as any).DataTransfer();
      dt.items.add(new File([new Uint8Array(data)], 'saddles.pdf', { type: 'application/pdf' }));
      return dt;
    }, bytes);
    const zone = page.getByText('Choose documents to upload').locator('..');
    await zone.dispatchEvent('dragover', { dataTransfer: transfer });
    await zone.dispatchEvent('drop', { dataTransfer: transfer });
    await page.getByRole('heading', { name: /dropped-manual/, level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Uploaded documents' }).getByText('saddles.pdf').waitFor();
    await page.getByRole('button', { name: 'Start indexing' }).click();
    await page.getByRole('heading', { name: /^Job .*: succeeded$/ }).waitFor({ timeout: 120_000 });
    await page.getByRole('search').getByLabel('Search the collection').fill('bells');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.getByText('saddles.pdf, page 1').waitFor();

    // Uploaded, it is no bot's: given to one in the page.
    const created = await fetch(`${service.url}/v2/bots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Saddle bot',
        channel: { type: 'web', details: { allowed_origins: [] } },
      }),
    });
    const appId = ((await created.json()) as { app_id: string }).app_id;
    await page.reload();
    const access = page.getByRole('region', { name: 'Which bots may use it' });
    await access.getByText('No bot may answer from it yet').waitFor();
    await access.getByLabel('Owner bot').selectOption({ label: 'Saddle bot' });
    await access.getByRole('button', { name: 'Save who may use it' }).click();
    await access.getByText('Saved.').waitFor();
    const detail = (await (
      await fetch(`${service.url}/v2/collections/dropped-manual`, {
        headers: { authorization: `Bearer ${service.adminKey}` },
      })
    ).json()) as { owner_app_id: string; shared: boolean };
    expect([detail.owner_app_id, detail.shared]).to.deep.equal([appId, false]);
    expectNoCspViolations(page);
  });
});
