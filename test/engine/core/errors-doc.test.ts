import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorKinds } from '../../../engine/core/errors.js';

describe('docs/errors.md', () => {
  const doc = readFileSync('docs/errors.md', 'utf8');
  it('lists every error kind with its code, title and HTTP status', () => {
    for (const kind of Object.values(ErrorKinds)) {
      expect(doc, `${kind.ac} ${kind.title}`).toContain(`| ${kind.ac} | ${kind.title} | ${kind.http} |`);
    }
  });
  it('has no code the engine does not raise', () => {
    const codes = [...doc.matchAll(/^\| *(\d+) \|/gm)].map((m) => Number(m[1])).filter((c) => c !== 0);
    expect(codes.sort((a, b) => a - b)).toEqual(Object.values(ErrorKinds).map((k) => k.ac).sort((a, b) => a - b));
  });
});
