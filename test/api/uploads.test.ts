import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApi, type TestApi } from '../support/api.ts';
import { multipartBody, postMultipart, type FilePart } from '../support/multipart.ts';

const BOUNDARY = 'uploadBoundary9x2';

/** Uploads `parts` as a multipart body written by hand, so a name reaches the edge exactly as given. */
function post(
  t: TestApi,
  collection: string,
  parts: FilePart[],
  query = '',
): Promise<{ status: number; json: any }> {
  const path = `/v2/collections/${collection}/files${query}`;
  return postMultipart(t, path, BOUNDARY, multipartBody(BOUNDARY, parts));
}

/** Every path under `dir`, sorted. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

describe('document uploads: names, replacing and quotas', () => {
  let t: TestApi;
  let storageDir: string;

  before(async () => {
    storageDir = await mkdtemp(join(tmpdir(), 'botwire-uploads-'));
    t = await startTestApi({
      STORAGE_DIR: storageDir,
      UPLOAD_COLLECTION_MAX_BYTES: '4096',
      UPLOAD_COLLECTION_MAX_FILES: '3',
      UPLOAD_TOTAL_MAX_BYTES: '6144',
      UPLOAD_TOTAL_MAX_FILES: '10',
    });
    // A document already stored, which a bad name must not reach or replace.
    const seeded = await post(t, 'names', [{ filename: 'a.pdf', content: 'original' }]);
    expect(seeded.status).to.equal(201);
  });

  after(async () => {
    await t.stop();
    await rm(storageDir, { recursive: true, force: true });
  });

  const BAD_NAMES: [string, string, string][] = [
    ['climbs out with ../', '../a.pdf', 'path'],
    ['climbs out with ..\\', '..\\a.pdf', 'path'],
    ['is absolute', '/etc/a.pdf', 'path'],
    ['has a folder', 'sub/a.pdf', 'path'],
    ['has a drive letter', 'C:a.pdf', 'absolute'],
    ['is empty', '', 'empty'],
    ['is ..', '..', 'dot'],
    ['holds NUL', 'a\u0000b.pdf', 'nul'],
    ['holds a control character', 'a\u0007b.pdf', 'control'],
    ['holds a C1 control character', 'a\u0085b.pdf', 'control'],
    ['holds a right-to-left override', 'invoice\u202Efdp.exe.pdf', 'format'],
    ['holds a left-to-right isolate', 'a\u2066b.pdf', 'format'],
    ['holds a zero-width space', 'a\u200Bb.pdf', 'format'],
    ['holds a zero-width joiner', 'a\u200Db.pdf', 'format'],
    ['holds a right-to-left mark', 'a\u200Fb.pdf', 'format'],
    ['holds a byte order mark', '\uFEFFa.pdf', 'format'],
    ['starts with a dot', '.hidden.pdf', 'hidden'],
    ['is over 255 bytes', `${'é'.repeat(126)}.pdf`, 'too_long'],
  ];
  for (const [what, filename, reason] of BAD_NAMES) {
    it(`when a file name ${what}, then 400 BW_ERR_FILE_NAME (${reason}) and nothing is written`, async () => {
      const before = await tree(storageDir);
      const original = await readFile(join(storageDir, 'names', 'a.pdf'), 'utf8');
      const answer = await post(t, 'names', [
        { filename: 'fine.pdf', content: 'fine' },
        { filename, content: 'payload' },
      ]);
      expect([answer.status, answer.json.error.code]).to.deep.equal([400, 'BW_ERR_FILE_NAME']);
      expect(answer.json.error.details.reason).to.equal(reason);
      expect(await tree(storageDir)).to.deep.equal(before);
      expect(await readFile(join(storageDir, 'names', 'a.pdf'), 'utf8')).to.equal(original);
    });
  }

  it('when a name is sent decomposed (NFD), then it is stored in NFC', async () => {
    const answer = await post(t, 'nfc', [{ filename: 'cafe\u0301.pdf', content: 'x' }]);
    expect(answer.status).to.equal(201);
    expect(answer.json.files[0].name).to.equal('caf\u00e9.pdf');
    expect(await readdir(join(storageDir, 'nfc'))).to.deep.equal(['caf\u00e9.pdf']);
  });

  it('when a stored name is uploaded again, then 409 BW_ERR_FILE_EXISTS and the file is kept; with ?replace=true it is replaced', async () => {
    const again = await post(t, 'names', [{ filename: 'a.pdf', content: 'intruder' }]);
    expect([again.status, again.json.error.code]).to.deep.equal([409, 'BW_ERR_FILE_EXISTS']);
    expect(await readFile(join(storageDir, 'names', 'a.pdf'), 'utf8')).to.equal('original');
    const replaced = await post(
      t,
      'names',
      [{ filename: 'a.pdf', content: 'second' }],
      '?replace=true',
    );
    expect(replaced.status).to.equal(201);
    expect(await readFile(join(storageDir, 'names', 'a.pdf'), 'utf8')).to.equal('second');
    const bad = await post(t, 'names', [{ filename: 'a.pdf', content: 'x' }], '?replace=yes');
    expect([bad.status, bad.json.error.code]).to.deep.equal([400, 'BW_ERR_SCHEMA']);
  });

  it('when an upload would pass the collection byte quota mid-body, then 413 BW_ERR_UPLOAD_QUOTA and nothing of it is kept', async () => {
    const first = await post(t, 'quota', [
      { filename: 'one.csv', content: Buffer.alloc(3000, 0x61) },
    ]);
    expect(first.status).to.equal(201);
    const before = await tree(storageDir);
    const over = await post(t, 'quota', [
      { filename: 'two.csv', content: Buffer.alloc(500, 0x62) },
      { filename: 'three.csv', content: Buffer.alloc(100_000, 0x63) },
    ]);
    expect([over.status, over.json.error.code]).to.deep.equal([413, 'BW_ERR_UPLOAD_QUOTA']);
    expect(over.json.error.details).to.include({ quota: 'collection', unit: 'bytes' });
    expect(await tree(storageDir)).to.deep.equal(before);
    // Replacing frees the old size first: the same bytes again fit.
    const replaced = await post(
      t,
      'quota',
      [{ filename: 'one.csv', content: Buffer.alloc(3500, 0x64) }],
      '?replace=true',
    );
    expect(replaced.status).to.equal(201);
  });

  it('when an upload would pass the collection file quota, then 413 BW_ERR_UPLOAD_QUOTA and nothing is kept', async () => {
    const before = await tree(storageDir);
    const over = await post(
      t,
      'many',
      ['1.csv', '2.csv', '3.csv', '4.csv'].map((filename) => ({ filename, content: 'x' })),
    );
    expect([over.status, over.json.error.code]).to.deep.equal([413, 'BW_ERR_UPLOAD_QUOTA']);
    expect(over.json.error.details).to.include({ quota: 'collection', unit: 'files' });
    expect(await tree(storageDir)).to.deep.equal(before);
  });

  it('when collections together would pass the total byte quota, then 413 BW_ERR_UPLOAD_QUOTA (total)', async () => {
    // 'names', 'nfc' and 'quota' hold about 3.5 KiB; 3 KiB more passes the 6 KiB total.
    const over = await post(t, 'other', [
      { filename: 'big.csv', content: Buffer.alloc(3072, 0x65) },
    ]);
    expect([over.status, over.json.error.code]).to.deep.equal([413, 'BW_ERR_UPLOAD_QUOTA']);
    expect(over.json.error.details).to.include({ quota: 'total', unit: 'bytes' });
    expect(await readdir(storageDir)).to.not.include('other');
    const fits = await post(t, 'other', [{ filename: 'small.csv', content: 'y' }]);
    expect(fits.status).to.equal(201);
  });
});
