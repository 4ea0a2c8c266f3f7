import {
  AlignmentType,
  Document,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { FAQ_QUESTIONS, sqliteFaq } from './corpus-faq.js';
import { csvWith } from './documents.js';

/**
 * A corpus of real-looking business documents, one or more of each format the product ingests,
 * plus a small web site, with questions whose answers are known (retrieval-quality.test.ts).
 *
 * The documents are written the way real ones are, and so carry the traits that extraction gets
 * wrong: a PDF manual with a running header and footer on every page, a table of contents with
 * dot leaders and body text wrapped with hyphenated words at line ends; a two-column paper; a
 * DOCX with headings and a table whose rows have empty cells in the middle; a spreadsheet and a
 * CSV whose facts sit far below the header; an R-FAQ-like text with paragraphs over 3,200
 * characters and no blank lines; HTML pages with a menu in plain divs and paragraphs hard-wrapped
 * in the middle of sentences. The text is the same on every call (document metadata dates are
 * fixed; the ZIP containers of DOCX and XLSX may still carry the time they were written).
 */

export interface CorpusQuestion {
  q: string;
  /** a string the answer must contain (case-insensitive); null for questions the corpus cannot answer */
  needle: string | null;
  /** the file name, or the site page path (e.g. '/pricing') */
  source: string;
  kind: 'exact' | 'paraphrase' | 'none';
}

export interface Corpus {
  files: Array<{ name: string; content: Uint8Array }>;
  /** path -> HTML, for startLocalSite */
  site: Record<string, string>;
  questions: CorpusQuestion[];
}

export const MANUAL_HEADER = 'Acme X200 Router \u2014 User Manual';
/** words the manual's layout must break across two lines, as `head-` / `tail` */
export const HYPHENATED_IN_MANUAL = ['configuration', 'identical'];

export async function buildCorpus(): Promise<Corpus> {
  return {
    files: [
      { name: 'router-manual.pdf', content: await routerManual() },
      { name: 'paper.pdf', content: await paper() },
      { name: 'handbook.docx', content: await handbook() },
      { name: 'prices.xlsx', content: await priceList() },
      { name: 'shipping.csv', content: shippingRates() },
      { name: 'faq.txt', content: new TextEncoder().encode(rFaq()) },
      { name: 'sqlite-faq.txt', content: new TextEncoder().encode(sqliteFaq(hardWrap)) },
    ],
    site: site(),
    questions: [...QUESTIONS, ...FAQ_QUESTIONS],
  };
}

/** Questions about `source`: [question, needle], exact unless a third element says 'paraphrase'. */
function about(source: string, rows: Array<[string, string, ('exact' | 'paraphrase')?]>): CorpusQuestion[] {
  return rows.map(([q, needle, kind = 'exact']) => ({ q, needle, source, kind }));
}

/** Questions nothing in the corpus answers. */
function unanswerable(questions: string[]): CorpusQuestion[] {
  return questions.map((q) => ({ q, needle: null, source: '', kind: 'none' }));
}

export const QUESTIONS: CorpusQuestion[] = [
  ...about('router-manual.pdf', [
    ['How much does the wall-mount kit cost?', '$4.99'],
    ['What is the default IP address of the router?', '192.168.8.1'],
    ['From which firmware version is WPA3-Personal supported?', 'v2.3.1'],
    [
      'Where can I find manuals and firmware files for the X200 on the support website?',
      'www.acme-example.com/support',
    ],
    ['What happens when both bands broadcast identical network names?', 'identical'],
    ['What does the router store in flash memory before new firmware is written?', 'configuration'],
    ['How do I wipe everything and start over with my router?', '10 seconds', 'paraphrase'],
  ]),
  ...about('paper.pdf', [
    ['What median latency did the mesh prototype reach?', '4.7 ms'],
    ['How many homes took part in the study?', '38 households', 'paraphrase'],
  ]),
  ...about('handbook.docx', [
    ['What is the phone number of the IT Helpdesk?', '+1 (555) 014-2300'],
    ['What are the opening hours of the canteen?', '07:30-15:00'],
    ['Which room is Facilities in?', 'B-214'],
    ['What is the meal allowance per day on business trips?', '$32.50'],
    ['Which version of the VPN client is required?', '5.1.4'],
    ['How much paid time off do full-time staff get each year?', '25 days', 'paraphrase'],
  ]),
  ...about('prices.xlsx', [
    ['What is the price of the X200 Mesh Satellite?', '149.99'],
    ['What is the SKU of the Fiber ONT Bridge?', 'AC-10212'],
    ['What discount does the Silver volume tier give?', '12%'],
  ]),
  ...about('shipping.csv', [
    ['How much does NordicPost Express charge for shipping to Iceland?', '38.50'],
    ['Where can I track an AndesCargo parcel?', 'track.andescargo-example.cl'],
  ]),
  ...about('faq.txt', [
    ['What is R?', 'statistical computing'],
    ['How do I install R packages?', 'install.packages'],
    ['How can I turn a factor into the numbers it shows?', 'as.numeric(as.character(f))', 'paraphrase'],
    ['Where can R be obtained?', 'www.r-example.org'],
  ]),
  // the web site
  ...about('/pricing', [
    ['How much does the Pro plan cost per month?', '$19 per month'],
    ['Do I save anything by paying annually?', 'two months free', 'paraphrase'],
  ]),
  ...about('/support', [
    ['What is the support e-mail address?', 'help@acme-example.com'],
    ['What is the latest firmware version for the X200?', 'v2.4.0'],
  ]),
  ...about('/about', [['Who founded Acme Networks?', 'Maria Lindqvist']]),
  ...about('/contact', [['What is the street address of the Acme office?', '200 Harbor Street']]),
  // nothing in the corpus answers these, though they share words with it
  ...unanswerable([
    'Is there parking for visitors at the office?',
    "When is the CEO's birthday?",
    'Can the router play music through a Bluetooth speaker?',
    'What is the price of a gym membership for employees?',
    'Does the company sell espresso machines?',
  ]),
];

// ---------------------------------------------------------------------------------------------
// line wrapping (pdf-lib draws one line per call and never wraps)

/**
 * Greedy word wrap. In `text`, `~` marks a place where a word may be hyphenated when it does not
 * fit, `^` a place where it is hyphenated whenever its first part fits on the line and the line
 * is then at least `forcedFrom` characters long (a nearly full line: the text around the chosen
 * word is written so that it lands there).
 */
export function wrapText(text: string, fits: (line: string) => boolean, forcedFrom = 0): string[] {
  const lines: string[] = [];
  const queue = text.split(/\s+/).filter(Boolean);
  let line = '';
  const join = (head: string) => (line ? `${line} ${head}` : head);
  while (queue.length > 0) {
    const word = queue.shift()!;
    const forced = word.indexOf('^');
    if (forced > 0) {
      const head = `${word.slice(0, forced).replace(/~/g, '')}-`;
      if (fits(join(head)) && join(head).length >= forcedFrom) {
        lines.push(join(head));
        line = '';
        queue.unshift(word.slice(forced + 1));
        continue;
      }
    }
    const plain = word.replace(/[~^]/g, '');
    if (fits(join(plain)) || !line) {
      line = join(plain);
      continue;
    }
    let broken = false;
    for (let p = word.lastIndexOf('~'); p > 0; p = word.lastIndexOf('~', p - 1)) {
      const head = `${word.slice(0, p).replace(/[~^]/g, '')}-`;
      if (fits(join(head))) {
        lines.push(join(head));
        line = '';
        queue.unshift(word.slice(p + 1));
        broken = true;
        break;
      }
    }
    if (broken) continue;
    lines.push(line);
    line = '';
    queue.unshift(word);
  }
  if (line) lines.push(line);
  return lines;
}

interface DrawOp {
  text: string;
  x: number;
  y: number;
  size: number;
  font: PDFFont;
}

// ---------------------------------------------------------------------------------------------
// router-manual.pdf

type ManualItem = { chapter: string } | { section: string } | { para: string } | { list: string[] };

const MANUAL: ManualItem[] = [
  { chapter: '1 Safety and package contents' },
  { section: '1.1 Safety instructions' },
  {
    para:
      'Read these instructions before you install the Acme X200. Keep the router away from water, heat sources and direct sunlight, ' +
      'and place it on a flat surface with at least 10 cm of free space on every side so that air can circulate through the ventilation ' +
      'slots. Use only the power adapter supplied with the router; a different adapter can damage the device and voids the warranty. ' +
      'Do not open the housing: there are no user-service~able parts inside. During a thunderstorm, unplug the power adapter and the ' +
      'DSL or fiber cable to protect the router from voltage surges. Children should not play with the router, its cables or its packaging.',
  },
  { section: '1.2 What is in the box' },
  {
    list: [
      '- Acme X200 Wi-Fi 6 router (model AX-X200)',
      '- 12 V / 1.5 A power adapter',
      '- Ethernet cable, Cat6, 1.5 m',
      '- Two detachable 5 dBi antennas',
      '- Quick start guide and warranty card',
    ],
  },
  {
    para:
      'If anything is missing or damaged, contact the shop where you bought the router within 14 days of purchase. Keep the box and the ' +
      'receipt: you need both if the router ever has to be returned under warranty.',
  },

  { chapter: '2 Getting started' },
  { section: '2.1 Connecting the cables' },
  {
    para:
      'Switch off your modem before you begin. Connect the blue WAN port of the router to the LAN port of your modem with the supplied ' +
      'Ethernet cable, then connect a computer to one of the four yellow LAN ports, or join the wireless network printed on the label ' +
      'under the router. Plug in the power adapter and press the power button on the back. The power light turns solid white after ' +
      'about two minutes, once the router has started; the internet light turns white as soon as the router has an internet ' +
      'connection. If the internet light stays amber, check that the modem is switched on and that the cable is firmly seated in the WAN port.',
  },
  { section: '2.2 Logging in to the web interface' },
  {
    para:
      'The router is managed from a web interface that runs on the router itself. Open a web browser on a connected computer or phone ' +
      'and go to http://192.168.8.1, the default IP address of the router. You can also type acme.router in the address bar. Log in ' +
      'with the user name admin and the password printed on the label under the router. For your security the router asks you to ' +
      'choose a new administrator password at the first login; choose a password of at least 12 characters and keep it in a safe ' +
      'place. If the page does not open, make sure that your computer obtains its address auto~matically (DHCP) and that it is not ' +
      'connected to another network at the same time.',
  },

  { chapter: '3 Basic setup' },
  { section: '3.1 The setup wizard' },
  {
    para:
      'At the first login the setup wizard starts by itself. It detects the type of your internet connection (DHCP, PPPoE or static IP) ' +
      "and asks only for the details your provider gave you. For PPPoE, enter the user name and password from your provider's letter. " +
      'For a static IP address, enter the address, subnet mask, gateway and DNS servers. The wizard then proposes a name and a password ' +
      'for your wireless network; you can keep the proposal or type your own. When you click Finish the router applies the settings and ' +
      'restarts its wireless radios, which takes about thirty seconds. Devices that were connected must then join the new network.',
  },
  { section: '3.2 Resetting the router' },
  {
    para:
      'If you have forgotten the administrator password, or if the router no longer behaves as expected, you can restore the factory ' +
      'settings. With the router switched on, press and hold the Reset button on the back with a paper clip for 10 seconds, until the ' +
      'power light flashes amber. Release the button and wait about two minutes while the router restarts. All your settings are ' +
      'erased: the wireless network name and password, the administrator password and any port forwarding rules return to the values ' +
      'on the label. A reset does not change the firmware version. If you only want to restart the router without losing your ' +
      'settings, press the power button twice or choose Restart in the System menu.',
  },

  { chapter: '4 Wireless settings' },
  { section: '4.1 Network name and password' },
  {
    para:
      'The router broadcasts two wireless networks, one on the 2.4 GHz band and one on the 5 GHz band. The 2.4 GHz band reaches ' +
      'further and passes better through walls; the 5 GHz band is faster over shorter distances. In Wireless > Basic you can change ' +
      'the network name (SSID) and the password of each band, hide a network, or switch a band off entirely. A network name may ' +
      'contain up to 32 characters; a password must have at least 8 characters.',
  },
  { section: '4.2 Band steering' },
  {
    para:
      'Band steering lets the router decide which band a device should use. When both the 2.4 GHz band and the 5 GHz band ' +
      'broadcast exactly the same password and identi^cal network names, the router moves dual-band phones and laptops to the 5 GHz band while they are close enough, and back to 2.4 GHz ' +
      'when they move away. Band steering is enabled by default. Older devices that only support 2.4 GHz are not affected. If a device ' +
      'keeps dropping its connection, give the two bands different names and connect the device to one of them explicitly.',
  },
  { section: '4.3 Channels and transmit power' },
  {
    para:
      'By default the router chooses the least crowded channel when it starts and checks again every night at 3:00. In an apartment ' +
      'building with many networks you may get better results by choosing a channel yourself: on 2.4 GHz use channel 1, 6 or 11, which ' +
      'do not overlap. On 5 GHz the router supports 20, 40, 80 and 160 MHz channel widths. Transmit power can be set to high, medium or ' +
      'low; a lower power reduces interference with your neighbours when the router stands in a small flat.',
  },

  { chapter: '5 Security' },
  { section: '5.1 WPA3 encryption' },
  {
    para:
      'WPA3-Personal is supported from firmware v2.3.1 onwards. WPA3 protects your password against guessing attacks even when it is ' +
      'short, and encrypts the traffic of every device individually. Because some older devices cannot connect with WPA3, the router ' +
      'offers a mixed WPA2/WPA3 mode, which is the default after the update. Choose WPA3 only if all your devices support it. The older ' +
      'WEP and WPA (TKIP) modes are no longer offered, as they can be broken within minutes.',
  },
  { section: '5.2 Remote management' },
  {
    para:
      'Remote management lets you reach the web interface from the internet. It is switched off by default and should stay off unless ' +
      'you need it. If you switch it on, choose a port other than 80 or 443, allow only the IP addresses you trust, and use a strong ' +
      'administrator password. The router logs every login attempt in System > Log; after five failed attempts from one address, that ' +
      'address is blocked for 15 minutes.',
  },
  { section: '5.3 Firewall' },
  {
    para:
      'The built-in firewall blocks unsolicited connections from the internet. Port forwarding rules in Advanced > NAT open single ports ' +
      'for game consoles or servers on your network; UPnP, which lets devices open ports by themselves, is disabled by default.',
  },

  { chapter: '6 Firmware updates' },
  { section: '6.1 Automatic updates' },
  {
    para:
      'Acme publishes firmware updates that fix security problems and add features. The router checks for a new version every day and ' +
      'installs security updates automatically between 2:00 and 4:00 at night. You can change the time window, or switch automatic ' +
      'installation off, in System > Firmware. The version that is running is shown on the Status page.',
  },
  { section: '6.2 Updating manually' },
  {
    para:
      'To update manually, download the firmware file for the X200 from the support website and choose System > Firmware > Upload. ' +
      'Before the new firmware is written, the router first stores a backup copy of its current network and wireless config^uration in flash memory, so that your ' +
      'settings are kept after the update. Do not switch the router off while the update runs: the power light blinks white for about ' +
      'four minutes, then the router restarts by itself. If an update fails, the router starts from its recovery partition with the ' +
      'previous firmware.',
  },
  { section: '6.3 Release notes' },
  {
    list: [
      'v2.3.1    WPA3-Personal, mixed WPA2/WPA3 mode, faster channel scan',
      'v2.2.0    Guest network schedule, IPv6 firewall rules',
      'v2.1.4    Security fixes for the web interface',
    ],
  },

  { chapter: '7 Guest network and parental controls' },
  { section: '7.1 Guest network' },
  {
    para:
      'The guest network gives visitors internet access without access to your own computers, printers or storage. Switch it on in ' +
      'Wireless > Guest and choose a name and a password that you can share. The guest network can switch itself off after 2, 4 or 8 ' +
      'hours, and its speed can be limited so that guests do not slow down your own devices.',
  },
  { section: '7.2 Parental controls' },
  {
    para:
      'Profiles group the devices of one person. For each profile you can set bedtimes during which its devices have no internet, ' +
      'block categories of websites, and pause the internet with one click in the Acme app. A weekly report shows how long each ' +
      'profile was online. Parental controls work only for devices connected to the router, not for phones using mobile data.',
  },

  { chapter: '8 Troubleshooting' },
  {
    para:
      'The internet light is amber. The router has no internet connection. Restart the modem, wait until it is ready, then restart ' +
      'the router. If the light stays amber, run the setup wizard again and check the details from your provider.',
  },
  {
    para:
      'The wireless network is slow. Move the router to a central, raised position away from metal objects and aquariums. Check in ' +
      'Wireless > Channels whether your neighbours use the same channel, and try another one.',
  },
  {
    para:
      'I cannot reach the web interface. Connect a computer with a cable to a yellow LAN port and open the default address again. If ' +
      'you changed the address and have forgotten it, reset the router as described in chapter 3.',
  },
  {
    para:
      'Devices lose their connection at night. The automatic channel selection runs at 3:00 and briefly restarts the radios. Choose a ' +
      'fixed channel if your devices do not reconnect by themselves.',
  },

  { chapter: '9 Accessories, warranty and support' },
  { section: '9.1 Accessories' },
  {
    para:
      'The optional wall-mount kit (part number AC-WM2) costs $4.99 and includes two screws, two dowels and a drilling template. A ' +
      'replacement power adapter (AC-PA12) costs $14.99. Accessories can be ordered from the Acme online shop or from your dealer.',
  },
  { section: '9.2 Warranty' },
  {
    para:
      'The X200 comes with a two-year limited warranty from the date of purchase. The warranty covers defects in materials and ' +
      'workmanship; it does not cover damage caused by lightning, liquids, a wrong power adapter or opening the housing. To make a ' +
      'claim, contact the shop where you bought the router and include your receipt and the serial number.',
  },
  { section: '9.3 Support' },
  {
    para:
      'Manuals, firmware files and answers to frequent questions are on the support website www.acme-example.com/support. Our support ' +
      'team answers by phone on weekdays from 8:00 to 20:00. Please have the serial number from the label ready when you call.',
  },

  { chapter: '10 Technical specifications' },
  {
    list: [
      'Wireless standard: IEEE 802.11ax (Wi-Fi 6), dual band, 4x4 MU-MIMO',
      'Maximum speed: 574 Mbit/s (2.4 GHz) + 2402 Mbit/s (5 GHz)',
      'Ports: 1 \u00d7 2.5 GbE WAN, 4 \u00d7 1 GbE LAN, 1 \u00d7 USB 3.0',
      'Power: 12 V DC, 1.5 A, typical consumption 9 W',
      'Dimensions: 230 \u00d7 145 \u00d7 48 mm; weight 480 g',
      'Operating temperature: 0 \u00b0C to 40 \u00b0C, humidity 10% to 90% non-condensing',
      'Certifications: CE, FCC, Wi-Fi CERTIFIED 6',
    ],
  },
];

/**
 * A new PDF titled `title`, created and modified at `date` (the same bytes every run), with its
 * regular, bold and italic fonts embedded in that order.
 */
async function newPdf(
  title: string,
  date: string,
  fonts: [regular: StandardFonts, bold: StandardFonts, italic: StandardFonts],
  producer?: string,
) {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(title);
  if (producer) doc.setProducer(producer);
  doc.setCreationDate(new Date(date));
  doc.setModificationDate(new Date(date));
  const embedded = [];
  for (const font of fonts) embedded.push(await doc.embedFont(font));
  return { doc, regular: embedded[0]!, bold: embedded[1]!, italic: embedded[2]! };
}

async function routerManual(): Promise<Uint8Array> {
  const { doc, regular, bold, italic } = await newPdf(
    'Acme X200 User Manual',
    '2025-03-01T09:00:00Z',
    [StandardFonts.Helvetica, StandardFonts.HelveticaBold, StandardFonts.HelveticaOblique],
    'pdf-lib',
  );
  const [W, H] = [595.28, 841.89];
  const left = 72;
  const width = W - 2 * left;
  const top = 770;
  const bottom = 72;
  const body = 10.5;
  const lead = 14;
  // about 80 characters a line, like a printed manual
  const columns = 84;
  const fitsLine = (l: string) => l.length <= columns && regular.widthOfTextAtSize(l, body) <= width;

  // layout: content pages first (their page numbers fill the table of contents)
  const pages: DrawOp[][] = [];
  const toc: Array<{ label: string; page: number; level: 1 | 2 }> = [];
  let y = top;
  const FIRST_CONTENT_PAGE = 3;
  const newPage = () => {
    pages.push([]);
    y = top;
  };
  const room = (h: number) => {
    if (pages.length === 0 || y - h < bottom) newPage();
  };
  const draw = (text: string, size: number, font: PDFFont, x = left) =>
    pages[pages.length - 1]!.push({ text, x, y, size, font });
  const hyphenated = new Set<string>();
  for (const item of MANUAL) {
    if ('chapter' in item) {
      newPage();
      draw(item.chapter, 17, bold);
      toc.push({ label: item.chapter, page: pages.length - 1 + FIRST_CONTENT_PAGE, level: 1 });
      y -= 34;
    } else if ('section' in item) {
      room(22 + 3 * lead);
      y -= 6;
      draw(item.section, 12.5, bold);
      toc.push({ label: item.section, page: pages.length - 1 + FIRST_CONTENT_PAGE, level: 2 });
      y -= 20;
    } else {
      const lines = 'para' in item ? wrapText(item.para, fitsLine, columns - 12) : item.list;
      lines.forEach((line, i) => {
        if (line.endsWith('-') && /[a-z]-$/.test(line)) {
          const next = lines[i + 1] ?? '';
          hyphenated.add(line.split(' ').pop()!.slice(0, -1) + next.split(' ')[0]);
        }
        room(lead);
        draw(line, body, regular);
        y -= lead;
      });
      y -= 8;
    }
  }
  for (const word of HYPHENATED_IN_MANUAL) {
    if (![...hyphenated].some((w) => w.replace(/[^a-z]/gi, '') === word))
      throw new Error(`corpus: the manual's layout no longer breaks "${word}" across lines`);
  }

  const total = pages.length + FIRST_CONTENT_PAGE - 1;
  const frame = (page: PDFPage, n: number) => {
    page.drawText(MANUAL_HEADER, { x: left, y: 806, size: 9, font: italic, color: rgb(0.3, 0.3, 0.3) });
    page.drawLine({
      start: { x: left, y: 798 },
      end: { x: W - left, y: 798 },
      thickness: 0.5,
      color: rgb(0.6, 0.6, 0.6),
    });
    const footer = `Page ${n} of ${total}`;
    page.drawText(footer, {
      x: W - left - regular.widthOfTextAtSize(footer, 9),
      y: 40,
      size: 9,
      font: regular,
      color: rgb(0.3, 0.3, 0.3),
    });
  };

  // page 1: title page
  const title = doc.addPage([W, H]);
  frame(title, 1);
  title.drawText('Acme X200', { x: left, y: 560, size: 34, font: bold });
  title.drawText('Dual-band Wi-Fi 6 router', { x: left, y: 522, size: 18, font: regular });
  title.drawText('Installation and setup guide', { x: left, y: 496, size: 14, font: regular });
  title.drawText('Model AX-X200 \u00b7 Document revision 4 \u00b7 March 2025', {
    x: left,
    y: 200,
    size: 10,
    font: regular,
  });
  title.drawText('\u00a9 2025 Acme Networks Inc. All rights reserved.', { x: left, y: 184, size: 10, font: regular });

  // page 2: table of contents with dot leaders
  const contents = doc.addPage([W, H]);
  frame(contents, 2);
  contents.drawText('Contents', { x: left, y: top, size: 17, font: bold });
  let ty = top - 36;
  for (const entry of toc) {
    const indent = entry.level === 1 ? 0 : 18;
    const font = entry.level === 1 ? bold : regular;
    let leader = ' ';
    const tail = ` ${entry.page}`;
    while (font.widthOfTextAtSize(`${entry.label}${leader}.${tail}`, 10.5) < width - indent) leader += '.';
    contents.drawText(`${entry.label}${leader}${tail}`, { x: left + indent, y: ty, size: 10.5, font });
    ty -= entry.level === 1 ? 18 : 15;
  }

  pages.forEach((ops, i) => {
    const page = doc.addPage([W, H]);
    frame(page, i + FIRST_CONTENT_PAGE);
    for (const op of ops) page.drawText(op.text, { x: op.x, y: op.y, size: op.size, font: op.font });
  });
  return doc.save();
}

// ---------------------------------------------------------------------------------------------
// paper.pdf: two text columns side by side

const PAPER_ABSTRACT =
  'Mesh Wi-Fi systems promise low latency in every room, but published measurements come from detached houses and laboratories. ' +
  'We report on a field trial of a three-node mesh prototype in apartment buildings with dense neighbouring networks and compare ' +
  'it with a single-router baseline in the same homes.';

const PAPER: Array<{ heading: string } | { para: string }> = [
  { heading: '1 Introduction' },
  {
    para:
      'Multi-node mesh systems are now sold as the default answer to poor Wi-Fi cover~age in homes. Marketing material promises ' +
      'seamless roaming and low latency, but most published measure~ments come from detached houses or from laboratory setups with a ' +
      'handful of clients. Apartment buildings are different: dozens of neighbouring networks share the same channels, walls are made ' +
      'of reinforced concrete, and the number of devices per household keeps growing. In this paper we report on a field trial of a ' +
      'three-node mesh prototype in such an environ~ment and compare it with a single-router baseline.',
  },
  { heading: '2 Related work' },
  {
    para:
      'Earlier field studies of home Wi-Fi measured throughput rather than latency, and mostly with one access point per home [2]. ' +
      'Laboratory work on mesh routing shows that every wireless hop adds delay and halves the usable airtime of the backhaul ' +
      'channel unless a separate radio is used for it. Vendors publish latency figures measured in shielded rooms with a single ' +
      'client, which say little about a building where forty other networks compete for the same channels in the evening. To our ' +
      'knowledge no study has followed the same households with and without satellites over several weeks.',
  },
  { heading: '3 Method' },
  {
    para:
      'The field trial ran in 38 households in two apartment buildings in Rotterdam between September and November 2024. Each ' +
      "household received a prototype consisting of one X200 router and two satellites, placed according to the setup app's advice. " +
      'A measurement agent on the router sent an ICMP probe to every associated client every 10 seconds and recorded the round-trip ' +
      'time, the band, the channel width and the received signal strength. Households used their own devices; we counted 1,147 ' +
      'distinct clients, of which 61 percent were phones. For the baseline we switched the satellites off for one week in every ' +
      'three-week cycle, so that every household served as its own control. Probes that were lost were counted separately and ' +
      'excluded from the latency figures.',
  },
  { heading: '4 Results' },
  {
    para:
      'Across all homes the prototype reached a median latency of 4.7 ms to the gateway, against 11.2 ms for the single-router ' +
      'baseline. The 95th percentile fell from 48 ms to 19 ms. The improve~ment was largest in flats where the router sat at one end ' +
      'of a long corridor; in the smallest flats (under 50 square metres) the mesh brought no measurable gain, and in three households ' +
      'the baseline was slightly better because the satellites added a wireless hop for devices that could reach the router directly.',
  },
  {
    para:
      'Probe loss fell from 2.9 percent to 0.8 percent. Latency peaks coincided with the evening hours between 19:00 and 23:00, when ' +
      'neighbouring networks were busiest; the mesh reduced these peaks but did not remove them.',
  },
  { heading: '5 Discussion' },
  {
    para:
      'A wired backhaul between the nodes would remove the extra hop, but only 4 of the 38 households had Ethernet cabling in more ' +
      'than one room. The channel plan matters more than the number of nodes: when the automatic channel selection placed two nodes on ' +
      'overlapping 80 MHz channels, the median latency of that household doubled. We therefore changed the prototype to choose the ' +
      'backhaul channel first and the client channels afterwards, which removed the problem in all affected homes. Our results are ' +
      'limited to one manufacturer and two buildings; buildings with wooden floors or with fewer neighbouring networks may behave ' +
      'differently.',
  },
  { heading: '6 Conclusion' },
  {
    para:
      'In dense apartment buildings a three-node mesh more than halves the median Wi-Fi latency and cuts the tail latency by a factor ' +
      'of two and a half, provided that the channels of the backhaul and of the clients are planned together. Small flats gain little. ' +
      'We will publish the anonymised probe data with the final version of this paper.',
  },
  { heading: 'Acknowledgements' },
  {
    para:
      'We thank the households that took part in the trial for their patience, the housing association for access to the ' +
      'buildings, and our colleagues in the firmware team for the measurement agent. The trial was approved by the ethics board of ' +
      'Acme Networks Research; no traffic content was recorded, only probe timings and radio statistics.',
  },
  { heading: 'References' },
  { para: '[1] IEEE 802.11ax-2021, Enhancements for High Efficiency WLAN.' },
  { para: '[2] A. Kumar, P. Lind and R. Moreau. Roaming in residential mesh networks. Proc. ACM IMC, 2022.' },
  { para: '[3] Acme Networks. X200 User Manual, revision 4, 2025.' },
  { para: '[4] M. Chen and D. Osei. Channel planning for multi-hop home networks. IEEE INFOCOM, 2023.' },
  { para: '[5] Wi-Fi Alliance. Wi-Fi EasyMesh Specification, version 5.0, 2022.' },
];

async function paper(): Promise<Uint8Array> {
  const { doc, regular, bold, italic } = await newPdf(
    'Latency of Consumer Mesh Wi-Fi in Dense Apartment Buildings',
    '2025-01-15T10:00:00Z',
    [StandardFonts.TimesRoman, StandardFonts.TimesRomanBold, StandardFonts.TimesRomanItalic],
  );
  const [W, H] = [612, 792];
  const margin = 54;
  const gutter = 24;
  const colWidth = (W - 2 * margin - gutter) / 2;
  const size = 10.5;
  const lead = 13;
  const bottom = 60;

  let page = doc.addPage([W, H]);
  let pageNo = 1;
  const number = () => page.drawText(String(pageNo), { x: W / 2 - 3, y: 32, size: 9, font: regular });
  page.drawText('Latency of Consumer Mesh Wi-Fi in Dense Apartment Buildings', {
    x: margin,
    y: 730,
    size: 16,
    font: bold,
  });
  page.drawText('J. Okafor, L. Brandt and S. Varga \u00b7 Acme Networks Research, Portland', {
    x: margin,
    y: 710,
    size: 10.5,
    font: italic,
  });
  let y = 684;
  page.drawText('Abstract', { x: margin, y, size: 10.5, font: bold });
  y -= 14;
  for (const line of wrapText(PAPER_ABSTRACT, (l) => italic.widthOfTextAtSize(l, size) <= W - 2 * margin)) {
    page.drawText(line, { x: margin, y, size, font: italic });
    y -= lead;
  }
  const columnTop = y - 14;
  let top = columnTop;
  let column = 0;
  y = top;
  const advance = (h: number) => {
    if (y - h >= bottom) return;
    if (column === 0) {
      column = 1;
    } else {
      number();
      page = doc.addPage([W, H]);
      pageNo++;
      column = 0;
      top = 740;
    }
    y = top;
  };
  const x = () => margin + column * (colWidth + gutter);
  for (const item of PAPER) {
    if ('heading' in item) {
      advance(3 * lead + 6);
      y -= 6;
      page.drawText(item.heading, { x: x(), y, size: 11, font: bold });
      y -= lead + 3;
    } else {
      for (const line of wrapText(item.para, (l) => regular.widthOfTextAtSize(l, size) <= colWidth)) {
        advance(lead);
        page.drawText(line, { x: x(), y, size, font: regular });
        y -= lead;
      }
      y -= 4;
    }
  }
  number();
  return doc.save();
}

// ---------------------------------------------------------------------------------------------
// handbook.docx

async function handbook(): Promise<Uint8Array> {
  const p = (text: string) => new Paragraph({ children: [new TextRun(text)], spacing: { after: 120 } });
  const h1 = (text: string) => new Paragraph({ text, heading: HeadingLevel.HEADING_1 });
  const h2 = (text: string) => new Paragraph({ text, heading: HeadingLevel.HEADING_2 });
  const cell = (text: string, header = false) =>
    new TableCell({
      width: { size: 20, type: WidthType.PERCENTAGE },
      children: [new Paragraph({ children: text ? [new TextRun({ text, bold: header })] : [] })],
    });
  const rows: string[][] = [
    ['Department', 'Contact', 'Phone', 'Room', 'Opening hours'],
    ['IT Helpdesk', 'Priya Nair', '+1 (555) 014-2300', 'A-101', '08:00-18:00'],
    ['Human Resources', 'Tom Becker', '+1 (555) 014-2310', 'A-204', '09:00-17:00'],
    ['Facilities', 'Ana Costa', '', 'B-214', '07:00-16:00'],
    ['Canteen', '', '', 'C-001', '07:30-15:00'],
    ['Mail room', 'Luis Ortega', '+1 (555) 014-2350', '', '08:30-12:00'],
    ['Finance', 'Grace Kim', '+1 (555) 014-2320', 'A-310', '09:00-17:00'],
    ['Security desk', '', '+1 (555) 014-2399', 'Lobby', '24 hours'],
    ['Travel desk', 'Omar Haddad', '+1 (555) 014-2330', 'A-312', '09:00-13:00'],
  ];
  const table = new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    rows: rows.map((r, i) => new TableRow({ tableHeader: i === 0, children: r.map((c) => cell(c, i === 0)) })),
  });
  const doc = new Document({
    creator: 'Acme Networks HR',
    title: 'Employee Handbook 2025',
    description: 'Acme Networks employee handbook',
    sections: [
      {
        children: [
          new Paragraph({
            text: 'Acme Networks Employee Handbook 2025',
            heading: HeadingLevel.TITLE,
            alignment: AlignmentType.LEFT,
          }),
          h1('1 Welcome'),
          p(
            'Welcome to Acme Networks. This handbook explains how we work together: working hours and leave, expenses and travel, ' +
              'the use of company equipment, and whom to call when you need help. It applies to all employees in the Portland office. ' +
              'Where a local agreement or the law gives you more, the agreement or the law applies. Questions about this handbook go ' +
              'to Human Resources.',
          ),
          h1('2 Working hours and leave'),
          h2('2.1 Working hours'),
          p(
            'A full-time week has 40 hours. Core hours are 10:00 to 15:00 from Monday to Thursday; outside core hours you plan your ' +
              'time with your team. Overtime must be agreed with your manager in advance and is compensated with time off within three ' +
              'months. Working from home is possible up to two days a week when your role allows it.',
          ),
          h2('2.2 Annual leave'),
          p(
            'Full-time employees are entitled to 25 days of paid annual leave per calendar year, in addition to public holidays. ' +
              'Part-time employees receive a proportional entitlement, and new employees a pro-rated one in their first year. Leave ' +
              'requests go through the HR portal at least two weeks in advance for periods longer than three days. Up to five unused ' +
              'days can be carried over to the next year.',
          ),
          h2('2.3 Sick leave'),
          p(
            'If you are ill, tell your manager before 9:00 on the first day. From the fourth day of illness we need a note from a ' +
              'doctor. Your salary is paid in full for the first six weeks of illness.',
          ),
          h1('3 Expenses and travel'),
          p(
            'Business travel is booked through the travel desk. Economy class is the standard for flights under six hours. On ' +
              'business trips the meal allowance is $32.50 per day; hotel costs are reimbursed up to the limits published by the travel ' +
              'desk. Expense claims are filed at intranet.acme-example.com/expenses within 30 days, with the receipts attached as ' +
              'photos or PDF files. Claims are paid with the next monthly salary.',
          ),
          h1('4 IT and security'),
          p(
            'Every employee receives a laptop with an encrypted disk. To work outside the office you connect through the company VPN; ' +
              'the VPN client must be version 5.1.4 or later, older versions are refused by the gateway. Use a password manager and ' +
              'turn on two-factor authentication for every company account. Report a lost or stolen device to the IT Helpdesk at ' +
              'once, day or night, so that it can be locked and erased remotely.',
          ),
          h1('5 Department contacts'),
          p(
            'The departments below are on the ground floor (rooms starting with C), the first floor (A) and the second floor (B).',
          ),
          table,
          p(
            'Rooms and opening hours may change during the renovation of building B; the intranet always has the current list.',
          ),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

// ---------------------------------------------------------------------------------------------
// prices.xlsx: a long price list with facts far below the header, and a small second sheet

const FAMILIES: Array<[string, string[]]> = [
  ['Cat6 Patch Cable', ['0.5 m', '1 m', '2 m', '3 m', '5 m', '10 m']],
  ['Cat6a Patch Cable', ['0.5 m', '1 m', '2 m', '5 m', '15 m']],
  ['USB-C Charger', ['20 W', '30 W', '45 W', '65 W', '100 W']],
  ['PoE Injector', ['15 W', '30 W', '60 W', '90 W']],
  ['Network Switch', ['5-port', '8-port', '16-port', '24-port', '48-port']],
  ['Wi-Fi Extender', ['AC750', 'AC1200', 'AX1500', 'AX3000']],
  ['Powerline Adapter', ['600 Mbit/s', '1200 Mbit/s', '2400 Mbit/s']],
  ['Rack Shelf', ['1U', '2U', '4U']],
  ['Fiber Patch Cord', ['LC-LC 1 m', 'LC-LC 3 m', 'SC-LC 2 m', 'SC-SC 5 m']],
  ['Surge Protector', ['4 outlets', '6 outlets', '8 outlets']],
  ['Smart Plug', ['white', 'black', '2-pack', '4-pack']],
  ['Antenna', ['5 dBi', '8 dBi', '12 dBi outdoor']],
];

async function priceList(): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Acme Networks Sales';
  wb.created = new Date('2025-02-01T08:00:00Z');
  wb.modified = new Date('2025-02-01T08:00:00Z');
  const sheet = wb.addWorksheet('Price list');
  sheet.columns = [
    { header: 'SKU', key: 'sku', width: 12 },
    { header: 'Product', key: 'product', width: 36 },
    { header: 'Price', key: 'price', width: 10, style: { numFmt: '"$"#,##0.00' } },
    { header: 'Stock', key: 'stock', width: 8 },
    { header: 'Warehouse', key: 'warehouse', width: 14 },
  ];
  sheet.getRow(1).font = { bold: true };
  const warehouses = ['Reno', 'Columbus', 'Rotterdam', 'Singapore'];
  const cents = [0.49, 0.9, 0.95, 0];
  for (let i = 1; i <= 240; i++) {
    const [family, variants] = FAMILIES[i % FAMILIES.length]!;
    const variant = variants[Math.floor(i / FAMILIES.length) % variants.length]!;
    const revision = String.fromCharCode(65 + (Math.floor(i / 60) % 4));
    let product = `${family} ${variant} (rev. ${revision})`;
    let price = 3 + ((i * 37) % 180) + cents[i % cents.length]!;
    let stock = (i * 53) % 400;
    let warehouse = warehouses[(i * 7) % warehouses.length]!;
    // facts far below the header row
    if (i === 170) [product, price, stock, warehouse] = ['X200 Mesh Satellite', 149.99, 64, 'Reno'];
    if (i === 212) [product, price, stock, warehouse] = ['Fiber ONT Bridge (GPON)', 89.9, 18, 'Rotterdam'];
    sheet.addRow({ sku: `AC-${10000 + i}`, product, price, stock, warehouse });
  }
  const tiers = wb.addWorksheet('Volume discounts');
  tiers.columns = [
    { header: 'Tier', key: 'tier', width: 12 },
    { header: 'Minimum units', key: 'min', width: 16 },
    { header: 'Discount', key: 'discount', width: 10, style: { numFmt: '0%' } },
  ];
  tiers.getRow(1).font = { bold: true };
  tiers.addRow({ tier: 'Bronze', min: 10, discount: 0.05 });
  tiers.addRow({ tier: 'Silver', min: 50, discount: 0.12 });
  tiers.addRow({ tier: 'Gold', min: 200, discount: 0.18 });
  tiers.addRow({ tier: 'Platinum', min: 1000, discount: 0.25 });
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

// ---------------------------------------------------------------------------------------------
// shipping.csv

const COUNTRIES = [
  'United States',
  'Canada',
  'Mexico',
  'United Kingdom',
  'Ireland',
  'France',
  'Germany',
  'Netherlands',
  'Belgium',
  'Luxembourg',
  'Spain',
  'Portugal',
  'Italy',
  'Austria',
  'Switzerland',
  'Denmark',
  'Sweden',
  'Norway',
  'Finland',
  'Poland',
  'Czech Republic',
  'Hungary',
  'Greece',
  'Turkey',
  'Japan',
  'South Korea',
  'Singapore',
  'Australia',
  'New Zealand',
  'India',
  'Brazil',
  'Estonia',
  'Iceland',
  'Chile',
  'Peru',
  'Argentina',
  'South Africa',
];
const CARRIERS: Array<[string, string]> = [
  ['DHL Express', 'www.dhl-example.com/track'],
  ['UPS Standard', 'www.ups-example.com/tracking'],
  ['FedEx Economy', 'www.fedex-example.com/track'],
];

function shippingRates(): Uint8Array {
  const rows: string[][] = [['Country', 'Carrier', 'Days', 'Cost', 'Tracking']];
  let i = 0;
  for (const country of COUNTRIES) {
    const carriers: Array<[string, string]> =
      country === 'Iceland'
        ? [['NordicPost Express', 'track.nordicpost-example.is'], CARRIERS[0]!, CARRIERS[1]!]
        : ['Chile', 'Peru', 'Argentina'].includes(country)
          ? [['AndesCargo', 'track.andescargo-example.cl'], CARRIERS[0]!, CARRIERS[2]!]
          : CARRIERS;
    for (const [carrier, tracking] of carriers) {
      i++;
      const days = 2 + ((i * 5) % 11);
      let cost = `${8 + ((i * 13) % 60)}.${['90', '40', '95'][i % 3]}`;
      if (country === 'Iceland' && carrier === 'NordicPost Express') cost = '38.50';
      rows.push([country, carrier, String(days), cost, tracking]);
    }
  }
  return csvWith(rows);
}

// ---------------------------------------------------------------------------------------------
// faq.txt: an R-FAQ-like text, hard-wrapped at 72 columns, answers as long paragraphs

function hardWrap(text: string, columns = 72): string {
  return wrapText(text, (l) => l.length <= columns).join('\n');
}

function rFaq(): string {
  const sections: Array<[string, string[]]> = [
    [
      '1.1 What is R?',
      [
        'R is a system for statistical computing and graphics. It consists of a language plus a run-time environment with graphics, ' +
          'a debugger, access to certain system functions, and the ability to run programs stored in script files. The design of R ' +
          "has been heavily influenced by two existing languages: Becker, Chambers and Wilks' S and Sussman's Scheme. Whereas the " +
          'resulting language is very similar in appearance to S, the underlying implementation and semantics are derived from ' +
          'Scheme. The core of R is an interpreted computer language which allows branching and looping as well as modular ' +
          'programming using functions. Most of the user-visible functions in R are written in R itself; it is possible for the user ' +
          'to interface to procedures written in C, C++ or FORTRAN for efficiency. The R distribution contains functionality for a ' +
          'large number of statistical procedures, among them linear and generalized linear models, nonlinear regression models, ' +
          'time series analysis, classical parametric and nonparametric tests, clustering and smoothing. There is also a large set ' +
          'of functions which provide a flexible graphical environment for creating various kinds of data presentations, from ' +
          'simple scatter plots to multi-panel displays. Additional modules, called packages, are available for a variety of ' +
          'specific purposes, and thousands of them are distributed by the archive network described below. R is free software ' +
          'distributed under the terms of the GNU General Public License; it runs on a wide variety of UNIX platforms and similar ' +
          'systems, on Windows and on macOS. The name R is partly based on the first names of the first two authors and partly a ' +
          'play on the name of S. Data in R are held in objects: vectors, matrices, arrays, lists, factors and data frames, and ' +
          'every object has a class that decides how generic functions such as print, summary and plot treat it. A typical session ' +
          'reads data from a file or a database with read.csv or a similar function, transforms it with vectorised operations, fits ' +
          'one or more models and draws the results; because every step is a function call, the whole analysis can be saved as a ' +
          'script and run again when the data change. The interactive prompt, usually >, accepts any expression and prints its ' +
          'value, which makes R a calculator as well as a programming language: typing 4.99 * 3 prints 14.97, and typing ' +
          'mean(c(2, 4, 9)) prints 5. Help on any function is available with a question mark, as in ?lm, and help.start() opens ' +
          'the full documentation in a web browser. Memory is managed automatically; objects that are no longer referenced are ' +
          'removed by the garbage collector. Large data sets that do not fit in memory are usually handled through a database ' +
          'connection or one of the packages for out-of-memory data. The development of R is coordinated by the R Core Team, a ' +
          'group of volunteers who maintain the base distribution, release a new version every spring and publish patch releases ' +
          'during the year; the changes of every release are listed in the NEWS file that comes with it. R also has facilities for ' +
          'literate programming: reports that mix text and code can be produced with Sweave or similar tools, and the results of ' +
          'the analysis are inserted into the report when it is built, so that tables and figures always match the data. Many ' +
          'users first meet R through an integrated editor that shows the console, scripts, plots and help side by side.',
      ],
    ],
    [
      '2.1 How can R be obtained?',
      [
        'Sources, binaries and documentation for R can be obtained via CRAN, the Comprehensive R Archive Network, whose main site ' +
          'is www.r-example.org. The same files are mirrored by servers around the world; choose a mirror close to you for faster ' +
          'downloads. Binary distributions are provided for Windows and macOS and for the major Linux distributions, where R is ' +
          'usually installed with the package manager of the system.',
      ],
    ],
    [
      '2.2 How do I install R packages?',
      [
        'Packages are installed from within R with the function install.packages, giving the names of the packages as a character ' +
          'vector, as in install.packages(c("foo", "bar")). R downloads the packages and the packages they depend on from the CRAN ' +
          'mirror you chose and installs them into the first library in .libPaths(), which is a directory in your home area unless ' +
          'you run R with administrator rights. On Windows and macOS, binary packages are installed by default, so no compilers are ' +
          'needed; on Linux, packages are normally installed from source, which requires the compilers and the development headers ' +
          'of any system libraries a package uses, for example the headers of libxml2 for a package that parses XML. If the ' +
          'installation of a source package fails, the messages of the compiler usually name the missing header file, and the ' +
          'package manager of the system can install the library that provides it. Packages that are not on CRAN can be installed ' +
          'from a local file with install.packages("foo_1.0.tar.gz", repos = NULL), or from other repositories by giving their ' +
          'address in the repos argument. Once installed, a package is loaded for the session with library(foo); loading it does ' +
          'not install it, and installing it does not load it, which is the most common source of confusion among new users. To ' +
          'see which packages are installed, use installed.packages() or the Packages pane of your editor; to update all installed ' +
          'packages to their newest versions, use update.packages(ask = FALSE). Packages are installed for one version of R: after ' +
          'an upgrade of R from one minor version to the next, for example from 4.3 to 4.4, the packages must be installed again, ' +
          'which update.packages(checkBuilt = TRUE) does for all of them. If you work behind a proxy, set the environment variables ' +
          'http_proxy and https_proxy before starting R, or download the package files by other means and install them from the ' +
          'local files. In an organisation where many users need the same packages, an administrator can install them once into a ' +
          'site library that every user reads, and users can still install further packages into their personal library. Removing ' +
          'a package is done with remove.packages("foo"). A package that was installed but fails to load often misses one of its ' +
          'dependencies; reinstalling it with dependencies = TRUE usually solves this. Some packages need a newer version of R than ' +
          'the one you have; their CRAN page names the minimum version in the Depends field, and the only remedy is to upgrade R ' +
          'itself. Installing many packages at once can take a long time on Linux, since every one is compiled; setting the Ncpus ' +
          'argument, as in install.packages("foo", Ncpus = 4), compiles several packages in parallel on a machine with more cores. ' +
          'A record of the packages a project uses, with their versions, makes it possible to install the same set on another ' +
          'computer later; several packages exist to keep such a record per project and to restore it with one command. Packages ' +
          'can also be installed from the command line of the operating system with R CMD INSTALL foo_1.0.tar.gz, which is ' +
          'convenient in scripts that set up a new machine or a container image. Errors during an installation are written to ' +
          'the console; read the first error, not the last, because the later messages are usually consequences of it.',
      ],
    ],
    [
      '7.10 How do I convert factors to numeric?',
      [
        'It may happen that when reading numeric data into R, usually from a file, a column comes in as a factor, because one of ' +
          'its entries was not a number: a price written as 4,99 instead of 4.99, or a footnote mark after a value. If f is such a ' +
          'factor object, as.numeric(f) will return the internal codes of the levels, 1, 2, 3 and so on, and not the numbers that ' +
          'are printed, which is rarely what is wanted. To transform a factor f to approximately its original numeric values, ' +
          'as.numeric(as.character(f)) is recommended; as.numeric(levels(f))[f] gives the same result and is slightly more ' +
          'efficient for long factors. Entries that are not numbers become NA, with a warning.',
      ],
    ],
    [
      '7.31 Why does R not think these numbers are equal?',
      [
        'The only numbers that can be represented exactly in the numeric type of R are integers and fractions whose denominator is ' +
          'a power of 2. All other numbers are internally rounded to about 53 binary digits of accuracy. As a result, two floating ' +
          'point numbers will not reliably be equal unless they have been computed by the same algorithm, and not always even then. ' +
          'For example, 0.3 - 0.1 == 0.2 is FALSE, and a sum of prices such as 4.99 read from a file may differ from the total ' +
          'printed on the invoice in the last digits. Compare such numbers with isTRUE(all.equal(x, y)), which allows for a small ' +
          'tolerance, and format them with round() or sprintf("%.2f", x) when they are shown.',
      ],
    ],
  ];
  const out = [
    'R FAQ',
    'Frequently Asked Questions on R',
    'Version 2025-03-01',
    '',
    hardWrap(
      'This document contains answers to some of the most frequently asked questions about R. Suggestions for additions are ' +
        'welcome at the address given on www.r-example.org.',
    ),
    '',
  ];
  for (const [heading, paras] of sections) {
    out.push(heading, '', ...paras.flatMap((p) => [hardWrap(p), '']));
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// the web site: a menu of plain divs on every page, paragraphs hard-wrapped mid-sentence

const MENU = `<div class="menu">
      <a href="/">Home</a> |
      <a href="/pricing">Pricing</a> |
      <a href="/support">Support</a> |
      <a href="/about">About us</a> |
      <a href="/contact">Contact</a>
    </div>`;

const FOOTER = `<div class="bottom">
      <span>&copy; 2025 Acme Networks Inc.</span>
      <a href="/about">Imprint</a> &middot; <a href="/contact">Privacy</a>
    </div>`;

function page(title: string, content: string): string {
  return `<!DOCTYPE html>
<html>
  <head>
    <meta charset="utf-8">
    <title>${title}</title>
    <link rel="stylesheet" href="/style.css">
  </head>
  <body>
    <div class="logo"><img src="/logo.png" alt="Acme Networks"></div>
    ${MENU}
    <div class="content">
${content}
    </div>
    ${FOOTER}
  </body>
</html>
`;
}

function site(): Record<string, string> {
  return {
    '/': page(
      'Acme Networks - Wi-Fi for homes and small offices',
      `      <h1>Wi-Fi that simply works</h1>
      <p>Acme Networks makes Wi-Fi routers and mesh systems for homes and
      small offices. Our X200 router covers a flat of up to 120 square
      metres on its own, and with one or two satellites it reaches every
      corner of a house with three floors.</p>
      <p>All our routers can be managed from the Acme app and from our cloud
      portal. See the <a href="/pricing">plans and prices</a>, find answers on
      the <a href="/support">support page</a>, read <a href="/about">about our
      company</a> or <a href="/contact">get in touch</a>.</p>
      <p>New in March: firmware with WPA3 for every X200 and a guest network
      that switches itself off at the time you choose.</p>`,
    ),
    '/pricing': page(
      'Pricing - Acme Networks',
      `      <h1>Plans and pricing</h1>
      <p>Every Acme router can be managed from our cloud portal. The Basic plan
      is free for up to three routers and includes firmware updates and a
      weekly report by e-mail. For shops, offices and landlords who look after
      more routers we offer two paid plans.</p>
      <p>The Pro plan costs $19 per month and covers up to 25 routers,
      with alerts by e-mail and text message, a history of 90 days and
      guest networks with a login page in your own colours.</p>
      <p>The Business plan costs $79 per month for up to 250 routers and
      adds single sign-on, an audit log, an API and a support line that
      answers within four hours on working days.</p>
      <p>Prices are per account and exclude sales tax. Pay yearly and
      you get two months free; you can switch plans or cancel at the end
      of any billing period, and unused months of a yearly plan are
      refunded.</p>
      <p>Non-profit organisations and schools receive the Pro plan at half
      price. Write to us from the contact page with a short description of
      your organisation.</p>`,
    ),
    '/support': page(
      'Support - Acme Networks',
      `      <h1>Support</h1>
      <p>Most questions are answered in the manual of your router, which you
      can download as a PDF below, and in the questions on this page. If you
      still need help, our support team is there for you.</p>
      <h2>Contact support</h2>
      <p>Write to help@acme-example.com and describe the problem, the model
      of your router and the firmware version shown on its Status page. We
      answer within one working day. By phone, the support team can be
      reached on weekdays from 8:00 to 20:00 at +1 (555) 010-4400.</p>
      <h2>Firmware</h2>
      <p>The latest firmware for the X200 is v2.4.0, released on 3 March
      2025. It improves the roaming between the router and its satellites,
      fixes a problem where the guest network did not switch off at the
      scheduled time, and updates the root certificates. Routers with
      automatic updates switched on install it by themselves during the
      night; you can also install it by hand from the firmware page of the
      web interface.</p>
      <p>Older firmware versions remain available for download for two years
      after their release. We recommend to always run the latest version,
      because only the latest version receives security fixes.</p>
      <h2>Frequently asked questions</h2>
      <p><b>My internet connection drops every evening.</b> This is often
      caused by a crowded wireless channel. Open the web interface, go to
      Wireless and choose a fixed channel, or move the router away from the
      microwave oven and the cordless phone base station.</p>
      <p><b>I have forgotten the password of the web interface.</b> Reset the
      router to its factory settings with the button on the back; the
      password printed on the label is valid again afterwards. Your wireless
      network name and password are reset as well.</p>
      <p><b>Can I use the X200 with my fibre connection?</b> Yes. Connect the
      fibre modem or ONT of your provider to the blue WAN port. If your
      provider requires a VLAN tag, enter it in the internet settings of the
      web interface.</p>
      <p><b>How many devices can be connected?</b> The X200 serves up to 128
      devices at once. In practice the speed for each device depends more on
      the distance to the router than on the number of devices.</p>
      <p><b>Does the router support IPv6?</b> Yes, IPv6 is switched on by
      default when your provider offers it. The firewall protects the
      devices on your network over IPv6 in the same way as over IPv4.</p>
      <h2>Returns and repairs</h2>
      <p>Within 30 days of purchase you can return a router bought in our
      online shop without giving a reason. For repairs under warranty,
      contact the shop where you bought the device; routers bought from us
      are collected at your door at no cost.</p>`,
    ),
    '/about': page(
      'About us - Acme Networks',
      `      <h1>About Acme Networks</h1>
      <p>Acme Networks was founded in 1998 by Maria Lindqvist in a garage
      in Portland, Oregon, to build modems for the first broadband customers
      of a local cable company. Today the company employs 240 people in
      Portland, Rotterdam and Singapore.</p>
      <p>We design our routers ourselves and have them built by two
      partners in Taiwan and Mexico. Every firmware release is tested in our
      laboratory with more than 300 phones, laptops and smart-home devices
      before it reaches a customer.</p>
      <p>Acme Networks is a member of the Wi-Fi Alliance and publishes its
      security advisories on the support page.</p>`,
    ),
    '/contact': page(
      'Contact - Acme Networks',
      `      <h1>Contact us</h1>
      <p>Our head office is at 200 Harbor Street, Suite 5, Portland, OR 97209,
      United States. The reception is open on weekdays from 9:00 to 17:00.</p>
      <p>For questions about an order, write to orders@acme-example.com.
      For press enquiries, call +1 (555) 010-4410 or write to
      press@acme-example.com.</p>
      <form action="/contact" method="post">
        <label>Your name <input name="name"></label>
        <label>Your e-mail <input name="email"></label>
        <label>Message <textarea name="message"></textarea></label>
        <button type="submit">Send</button>
      </form>`,
    ),
  };
}
