import { crc32 } from 'node:zlib';

/** ZIP archives written by hand for the ingestion tests (valid ones, and ones whose headers lie). */

export interface ZipPart {
  name: string;
  /** bytes as stored in the archive */
  data: Buffer;
  method: 0 | 8;
  crc: number;
  /** what the headers claim the entry expands to */
  declaredSize: number;
}

/** An entry stored as is (method 0), its headers telling the truth. */
export const stored = (name: string, text: string): ZipPart => {
  const data = Buffer.from(text);
  return { name, data, method: 0, crc: crc32(data), declaredSize: data.length };
};

/** A minimal ZIP writer: local headers, central directory, end record (no ZIP64). */
export function writeZip(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(p.method, 8);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(p.crc >>> 0, 14);
    local.writeUInt32LE(p.data.length, 18);
    local.writeUInt32LE(p.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(p.method, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(p.crc >>> 0, 16);
    central.writeUInt32LE(p.data.length, 20);
    central.writeUInt32LE(p.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, p.data);
    centrals.push(central, name);
    offset += 30 + name.length + p.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A valid ZIP archive of the given files, stored as they are. */
export function zipOf(files: Record<string, string>): Buffer {
  return writeZip(Object.entries(files).map(([name, text]) => stored(name, text)));
}
