import { describe, expect, it } from 'vitest';
import { countCsvRecords } from '../../../src/io/csv-records.js';

describe('countCsvRecords', () => {
  it('counts records, not lines: a quoted field may hold line breaks', async () => {
    const text = 'id,name\n1,"Ada\nLovelace"\n2,"Grace ""Amazing"" Hopper"\n';
    expect(text.split('\n').length - 1).toBe(4);
    expect(await countCsvRecords(text)).toBe(3);
  });

  it('counts rows of uneven length rather than failing', async () => {
    expect(await countCsvRecords('id,name,email\n1,Ada\n2,Grace,g@example.com\n')).toBe(3);
  });

  it('counts nothing in an empty export', async () => {
    expect(await countCsvRecords('')).toBe(0);
  });
});
