import { describe, expect, test } from 'vitest';
import { uploadLimits } from '@office/sync-protocol';
import { addFiles, isDirectFile } from './selected-files';

const file = (name: string, size = 10, lastModified = 1) => ({ name, size, lastModified });

describe('addFiles', () => {
  test('picked files are added after those already chosen, without duplicates', () => {
    const a = file('a.txt');
    const result = addFiles([a], [file('a.txt'), file('b.pdf')]);
    expect(result.files.map((item) => item.name)).toEqual(['a.txt', 'b.pdf']);
    expect(result.problem).toBeNull();
  });

  test('a file over the size limit is left out with a reason', () => {
    const result = addFiles([], [file('big.zip', uploadLimits.fileBytes + 1), file('ok.txt')]);
    expect(result.files.map((item) => item.name)).toEqual(['ok.txt']);
    expect(result.problem).toBe('"big.zip" is larger than 25 MB and was not added.');
  });

  test('no more than the per-message count is kept', () => {
    const picked = Array.from({ length: uploadLimits.files + 2 }, (_, index) => file(`f${index}.txt`));
    const result = addFiles([], picked);
    expect(result.files).toHaveLength(uploadLimits.files);
    expect(result.problem).toBe(`You can attach up to ${uploadLimits.files} files to one message.`);
  });

  test('a file the screen does not take is left out with a reason', () => {
    const result = addFiles([], [file('setup.exe'), file('notes.txt')], (item) => item.name.endsWith('.txt'));
    expect(result.files.map((item) => item.name)).toEqual(['notes.txt']);
    expect(result.problem).toBe('"setup.exe" is not a supported file type and was not added.');
  });
});

describe('isDirectFile', () => {
  test('files are taken by their extension, in any case', () => {
    expect(isDirectFile({ name: 'Minutes.PDF' })).toBe(true);
    expect(isDirectFile({ name: 'photo.jpeg' })).toBe(true);
    expect(isDirectFile({ name: 'setup.exe' })).toBe(false);
    expect(isDirectFile({ name: 'pdf' })).toBe(false);
  });
});
