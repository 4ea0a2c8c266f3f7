import type { ParseResult } from './types.js';
import { assertSafeZip } from './office-zip.js';
import { type ParseLimits, Refusal } from './parse-common.js';
import { oneLine, TextBuilder, writeRecords } from './table-records.js';

// XLSX (a ZIP container: checked for bombs first, office-zip.ts)

export async function parseXlsx(buf: Buffer, limits: ParseLimits): Promise<ParseResult> {
  await assertSafeZip(buf, 'xlsx', limits);
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  // exceljs declares its own `Buffer` (an ArrayBuffer); at run time it takes a Node Buffer.
  await workbook.xlsx.load(buf as unknown as Parameters<typeof workbook.xlsx.load>[0]);

  const out = new TextBuilder(limits);
  let cells = 0;
  for (const sheet of workbook.worksheets) {
    const rows: string[][] = [];
    sheet.eachRow((row) => {
      const texts: string[] = [];
      for (let c = 1; c <= row.cellCount; c++) {
        const cell = row.getCell(c);
        // A merged range repeats its master's value in every cell: keep it once.
        const text = cell.isMerged && cell.master !== cell ? '' : oneLine(formattedCellText(cell.value, cell.numFmt));
        if (text !== '') cells++;
        texts.push(text);
      }
      if (cells > limits.maxCells)
        throw new Refusal(`The spreadsheet has more than ${limits.maxCells.toLocaleString('en')} cells`);
      rows.push(texts);
    });
    writeRecords(out, rows, sheet.name);
  }
  return { text: out.toString(), units: workbook.worksheets.length, marks: out.marks };
}

type CellValue = import('exceljs').CellValue;

/**
 * A number as the sheet shows it, as far as its format says so simply: a percentage (0.12 with
 * `0%` is "12%"), a fixed number of decimals (114 with `0.00` is "114.00"), a currency sign. Other
 * formats (dates are Date values already) keep the plain number.
 */
function formattedCellText(value: CellValue, numFmt: string | undefined): string {
  const number =
    typeof value === 'number'
      ? value
      : value && typeof value === 'object' && 'result' in value && typeof value.result === 'number'
        ? value.result
        : null;
  if (number === null || !numFmt || numFmt === 'General') return cellText(value);
  // the format of positive numbers, without colours, conditions and quoted text
  const section = numFmt.split(';')[0]!.replace(/\[[^\]]*\]/g, '');
  // a currency sign may be quoted ("$"#,##0.00) or escaped (\$); any other quoted text is left out
  const format = section.replace(/"([$€£¥])"|\\([$€£¥])/g, '$1$2').replace(/"[^"]*"/g, '');
  const decimals = /0\.(0+)/.exec(format)?.[1]?.length ?? 0;
  if (format.includes('%')) return `${(number * 100).toFixed(decimals)}%`;
  if (!/[0#]/.test(format)) return cellText(value);
  const currency = /[$€£¥]/.exec(format)?.[0] ?? '';
  const digits = Math.abs(number).toFixed(decimals);
  const text = format.includes(',')
    ? Number(digits).toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
    : digits;
  const sign = number < 0 ? '-' : '';
  return format.indexOf(currency) > format.search(/[0#]/) && currency
    ? `${sign}${text} ${currency}`
    : `${sign}${currency}${text}`;
}

function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return dateText(value);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('hyperlink' in value) return cellText(value.text);
  if ('error' in value) return value.error;
  if ('result' in value) return cellText(value.result ?? null);
  return '';
}

/** exceljs dates are UTC: a date alone when there is no time of day. */
function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}
