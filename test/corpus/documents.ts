/**
 * Hostile and malformed knowledge requests: document uploads (multipart), index requests, job and
 * search look-ups. The corpus runs the edge with `MAX_DOCUMENT_BYTES` = {@link MAX_DOCUMENT_BYTES}
 * and a storage folder of its own, and checks that no case leaves a file in it. What a bad document
 * does inside an indexing job is tested in test/knowledge-index.test.ts.
 */
import type { CorpusRequest, HttpCase } from './types.ts';

type DocumentCase = Omit<HttpCase, 'surface'>;
import { nested } from './types.ts';

const S = 'document';
export const MAX_DOCUMENT_BYTES = 200_000;
const BOUNDARY = 'corpusBoundary7MA4YWxk';

const schema = { status: 400, code: 'BW_ERR_SCHEMA' } as const;
const fileName = { status: 400, code: 'BW_ERR_FILE_NAME' } as const;
const unsupported = { status: 415, code: 'BW_ERR_DOCUMENT_UNSUPPORTED' } as const;
const notFound = { status: 404, code: 'BW_ERR_NOT_FOUND' } as const;

interface Part {
  field?: string;
  filename?: string;
  content: string | Buffer;
}

/** A multipart body as a browser would send it (or as a hostile client shapes it). */
function multipart(parts: Part[], { close = true, boundary = BOUNDARY } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.field ?? 'file'}"${filename}\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      Buffer.from(part.content),
      Buffer.from('\r\n'),
    );
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function upload(
  parts: Part[],
  options: { collection?: string; close?: boolean; contentType?: string } = {},
): () => CorpusRequest {
  return () => ({
    method: 'POST',
    path: `/v2/collections/${options.collection ?? 'corpus-docs'}/files`,
    headers: { 'content-type': options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}` },
    raw: multipart(parts, { close: options.close ?? true }),
  });
}

const PDF = '%PDF-1.4\n% a file that only starts like a PDF\n';

const UPLOADS: DocumentCase[] = [
  {
    name: 'an upload is sent as JSON',
    kind: 'wrong-type',
    request: () => ({
      method: 'POST',
      path: '/v2/collections/corpus-docs/files',
      body: { file: 'a.pdf' },
    }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    name: 'an upload declares multipart without a boundary',
    kind: 'malformed',
    request: upload([{ filename: 'a.pdf', content: PDF }], { contentType: 'multipart/form-data' }),
    expect: schema,
  },
  {
    name: 'an upload is cut short in the middle of a file',
    kind: 'truncated',
    request: upload([{ filename: 'a.pdf', content: PDF }], { close: false }),
    expect: schema,
  },
  {
    name: 'an upload holds only a form field',
    kind: 'missing-field',
    // Sent as application/octet-stream without a filename: a file part with an empty name.
    request: upload([{ field: 'note', content: 'no file here' }]),
    expect: fileName,
  },
  {
    name: 'an upload has an empty body',
    kind: 'missing-field',
    request: () => ({
      method: 'POST',
      path: '/v2/collections/corpus-docs/files',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      raw: '',
    }),
    expect: schema,
  },
  ...['letter.docx', 'run.exe', 'noextension', 'archive.zip', 'page.html', 'a.pdf.exe'].map(
    (filename): DocumentCase => ({
      name: `a file named ${filename} is uploaded`,
      kind: 'wrong-type',
      request: upload([{ filename, content: 'x' }]),
      expect: unsupported,
    }),
  ),
  {
    name: 'a good file and a .docx are uploaded together (all or none)',
    kind: 'wrong-type',
    request: upload([
      { filename: 'good.pdf', content: PDF },
      { filename: 'letter.docx', content: 'x' },
    ]),
    expect: unsupported,
  },
  ...(
    [
      ['a hidden name', '.secret.pdf', fileName],
      ['a name of only dots', '...pdf', fileName],
      // A raw control character makes the part header itself malformed.
      ['a name with a control character', 'a\u0001b.pdf', schema],
      ['a 300-byte name', `${'n'.repeat(296)}.pdf`, fileName],
      ['an empty name', '', fileName],
      ['a name climbing out with ../', '../escape.pdf', fileName],
      ['a name climbing out with ..\\', '..\\escape.pdf', fileName],
      ['an absolute name', '/tmp/escape.pdf', fileName],
      ['a name with a folder', 'sub/escape.pdf', fileName],
      ['a name with a drive letter', 'C:escape.pdf', fileName],
      ['a name with a right-to-left override', 'report\u202Efdp.exe.pdf', fileName],
      ['a name with a zero-width space', 'rep\u200Bort.pdf', fileName],
      ['a name with a first-strong isolate', 'rep\u2068ort.pdf', fileName],
    ] as const
  ).map(([what, filename, expect]): DocumentCase => ({
    name: `a file has ${what}`,
    kind: 'bad-name',
    request: upload([{ filename, content: PDF }]),
    expect,
  })),
  {
    name: 'the same file name appears twice in one upload',
    kind: 'duplicate',
    request: upload([
      { filename: 'twice.pdf', content: PDF },
      { filename: 'twice.pdf', content: PDF },
    ]),
    expect: schema,
  },
  {
    name: 'a file is one byte over the size limit',
    kind: 'huge',
    request: upload([{ filename: 'big.pdf', content: Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x41) }]),
    expect: { status: 413, code: 'BW_ERR_DOCUMENT_TOO_LARGE' },
  },
  {
    name: 'a small file is followed by one over the size limit',
    kind: 'huge',
    request: upload([
      { filename: 'small.pdf', content: PDF },
      { filename: 'big.csv', content: Buffer.alloc(MAX_DOCUMENT_BYTES + 10, 0x42) },
    ]),
    expect: { status: 413, code: 'BW_ERR_DOCUMENT_TOO_LARGE' },
  },
  {
    name: '101 files are uploaded at once',
    kind: 'huge',
    request: upload(
      Array.from({ length: 101 }, (_, i) => ({ filename: `f${i}.csv`, content: 'a' })),
    ),
    expect: { status: 413, code: 'BW_ERR_PAYLOAD_TOO_LARGE' },
  },
  ...[
    ['a dot-dot collection', '..evil'],
    ['a collection with a space', 'a%20b'],
    ['a collection with a quote (SQL)', "x'%3Bdrop%20table%20chunks%3B--"],
    ['a 129-character collection', 'c'.repeat(129)],
    ['a collection with a NUL', 'a%00b'],
    ['a collection starting with a dash', '-x'],
    ['a collection with a template', '%7B%7Bconstructor%7D%7D'],
  ].map(([what, collection]): DocumentCase => ({
    name: `a file is uploaded to ${what}`,
    kind: 'bad-name',
    request: upload([{ filename: 'a.pdf', content: PDF }], { collection: collection! }),
    expect: schema,
  })),
  {
    name: 'an upload comes without the admin key',
    kind: 'unauthenticated',
    request: () => ({ ...upload([{ filename: 'a.pdf', content: PDF }])(), auth: false }),
    expect: { status: 401, code: 'BW_ERR_UNAUTHORIZED' },
  },
  {
    name: 'an upload comes with a wrong admin key',
    kind: 'forged',
    request: () => {
      const r = upload([{ filename: 'a.pdf', content: PDF }])();
      return { ...r, auth: false, headers: { ...r.headers, authorization: 'Bearer not-the-key' } };
    },
    expect: { status: 401, code: 'BW_ERR_UNAUTHORIZED' },
  },
];

const indexRequest =
  (body: unknown, collection = 'corpus-docs'): (() => CorpusRequest) =>
  () => ({
    method: 'POST',
    path: `/v2/collections/${collection}/index`,
    body,
  });

const INDEXING: DocumentCase[] = [
  {
    name: 'an index request is not JSON',
    kind: 'malformed',
    request: () => ({
      method: 'POST',
      path: '/v2/collections/corpus-docs/index',
      headers: { 'content-type': 'application/json' },
      raw: '{"files": [',
    }),
    expect: { status: 400, code: 'BW_ERR_MALFORMED_JSON' },
  },
  ...(
    [
      ['files is a string', { files: 'a.pdf' }],
      ['files is empty', { files: [] }],
      ['a file name climbs out of the folder', { files: ['../../etc/passwd'] }],
      ['a file name is ..', { files: ['..'] }],
      ['a file name holds a NUL', { files: ['a\u0000.pdf'] }],
      ['a file is named twice', { files: ['a.pdf', 'a.pdf'] }],
      ['10001 files are named', { files: Array.from({ length: 10_001 }, (_, i) => `f${i}.pdf`) }],
      ['chunk_size is below 100', { chunk_size: 50 }],
      ['chunk_size is a string', { chunk_size: '1200' }],
      ['chunk_overlap is over half of chunk_size', { chunk_size: 1000, chunk_overlap: 600 }],
      ['chunk_overlap is negative', { chunk_overlap: -1 }],
      ['language is not a Postgres configuration', { language: 'klingon' }],
      ['language is an injection attempt', { language: "english'); drop table chunks; --" }],
      ['an unknown field is sent', { files: ['a.pdf'], priority: 'high' }],
      ['a job id is forced', { job_id: 'job_mine' }],
      ['the body is an array', [{ files: ['a.pdf'] }]],
      ['language is a template', { language: '{{constructor.constructor("x")()}}' }],
    ] as [string, unknown][]
  ).map(([what, body]): DocumentCase => ({
    name: `an index request: ${what}`,
    kind: 'schema',
    request: indexRequest(body),
    expect: schema,
  })),
  {
    name: 'an index request carries __proto__',
    kind: 'prototype-pollution',
    request: () => ({
      method: 'POST',
      path: '/v2/collections/corpus-docs/index',
      headers: { 'content-type': 'application/json' },
      raw: '{"__proto__": {"files": ["a.pdf"]}}',
    }),
    expect: schema,
  },
  {
    name: 'an index request nests 10 000 levels deep',
    kind: 'nesting',
    request: () => ({
      method: 'POST',
      path: '/v2/collections/corpus-docs/index',
      headers: { 'content-type': 'application/json' },
      raw: `{"files": ${nested(10_000)}}`,
    }),
    expect: { status: 400, code: 'BW_ERR_MALFORMED_JSON' },
  },
  {
    name: 'a collection with no uploaded document is indexed',
    kind: 'unknown-resource',
    request: indexRequest({}, 'corpus-empty'),
    expect: notFound,
  },
  {
    name: 'an index request is sent as text',
    kind: 'wrong-type',
    request: () => ({
      method: 'POST',
      path: '/v2/collections/corpus-docs/index',
      headers: { 'content-type': 'text/plain' },
      raw: 'files=a.pdf',
    }),
    expect: { status: 415, code: 'BW_ERR_UNSUPPORTED_MEDIA_TYPE' },
  },
];

const search =
  (collection: string, query: string): (() => CorpusRequest) =>
  () => ({
    method: 'GET',
    path: `/v2/collections/${collection}/search?${query}`,
  });

const LOOKUPS: DocumentCase[] = [
  ...[
    ['an unknown id', 'job_doesnotexist'],
    ['an id with SQL', "job_x'%20or%20'1'%3D'1"],
    ['a 300-character id', 'j'.repeat(300)],
    ['an id of dots', '..'],
  ].map(([what, id]): DocumentCase => ({
    name: `an indexing job is looked up by ${what}`,
    kind: 'unknown-resource',
    request: () => ({ method: 'GET', path: `/v2/index-jobs/${id}` }),
    expect: notFound,
  })),
  ...[
    ['q is missing', 'k=5'],
    ['q is empty', 'q=&k=5'],
    ['q is only spaces', 'q=%20%20%20'],
    ['q is 2001 characters', `q=${'a'.repeat(2001)}`],
    ['k is 0', 'q=bikes&k=0'],
    ['k is 51', 'q=bikes&k=51'],
    ['k is not a number', 'q=bikes&k=five'],
    ['k is a fraction', 'q=bikes&k=1.5'],
    ['k is negative', 'q=bikes&k=-3'],
  ].map(([what, query]): DocumentCase => ({
    name: `a search: ${what}`,
    kind: 'schema',
    request: search('corpus-docs', query!),
    expect: schema,
  })),
  ...[
    ['tsquery operators', `q=${encodeURIComponent("a & !b | c:* <-> 'd'")}`],
    ['SQL', `q=${encodeURIComponent("'; drop table chunks; --")}`],
    ['a NUL', 'q=a%00b'],
    ['a template', `q=${encodeURIComponent('{{constructor.constructor("x")()}}')}`],
  ].map(([what, query]): DocumentCase => ({
    name: `a search of an unknown collection holds ${what}`,
    kind: 'injection',
    request: search('corpus-nothing-here', query!),
    expect: notFound,
  })),
  {
    name: 'a search names a bad collection',
    kind: 'bad-name',
    request: search('..x', 'q=bikes'),
    expect: schema,
  },
  {
    name: 'a collection is read without the admin key',
    kind: 'unauthenticated',
    request: () => ({ method: 'GET', path: '/v2/collections/corpus-docs', auth: false }),
    expect: { status: 401, code: 'BW_ERR_UNAUTHORIZED' },
  },
];

export const DOCUMENT_CASES: HttpCase[] = [...UPLOADS, ...INDEXING, ...LOOKUPS].map((k) => ({
  ...k,
  surface: S,
}));
