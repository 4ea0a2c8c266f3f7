import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface DailySeries {
  /** one label per day, e.g. "Nov 01" */
  labels: string[];
  conversations: number[];
  messages: number[];
}

/** The axes' font (uPlot's default family), also used to measure the day labels. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
/** The least room between two day labels, in CSS pixels. */
const LABEL_GAP = 12;
/** How many days apart labelled days may be: every day, every other day, ... a week, a fortnight. */
const DAY_STEPS = [1, 2, 3, 5, 7, 14, 15, 30, 45, 60, 90];

let measuring: CanvasRenderingContext2D | null | undefined;
/** The widest of the labels in the axis font, in CSS pixels (a guess from its length without canvas). */
function widestLabel(labels: string[]): number {
  if (measuring === undefined) measuring = document.createElement('canvas').getContext('2d');
  if (measuring) measuring.font = AXIS_FONT;
  let widest = 0;
  for (const label of labels)
    widest = Math.max(widest, measuring ? measuring.measureText(label).width : label.length * 7.5);
  return Math.ceil(widest);
}

/**
 * Conversations and messages per day as a uPlot line chart (canvas; uPlot sets its element
 * styles through the CSSOM, so it runs under the CSP without inline styles). X is the day's index;
 * the axis prints its label. It follows its container's width.
 *
 * Not every day gets a label: labelled days are far enough apart for the widest label plus a gap
 * at the plot's current width (uPlot's `space` is the least distance between two ticks; it picks
 * the smallest step of DAY_STEPS that gives that much), so labels never overlap, on a phone
 * included, and more show as the chart widens. The last day always has one.
 */
export function DailyChart({ series, title }: { series: DailySeries; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { labels } = series;
    const xs = labels.map((_, i) => i);
    const space = widestLabel(labels) + LABEL_GAP;
    const width = () => Math.max(260, Math.floor(el.clientWidth));
    const narrow = el.clientWidth < 500;
    const plot = new uPlot(
      {
        width: width(),
        height: narrow ? 220 : 280,
        title: undefined,
        scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [
          {
            stroke: '#4b5563',
            grid: { show: false },
            font: AXIS_FONT,
            space,
            incrs: DAY_STEPS,
            splits: (_u, _axis, _min, _max, found) => {
              const step = Math.max(1, Math.round(found || labels.length));
              return xs.filter((i) => (labels.length - 1 - i) % step === 0);
            },
            values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
            size: 36,
          },
          {
            stroke: '#4b5563',
            font: AXIS_FONT,
            grid: { stroke: '#e5e7eb', width: 1 },
            values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')),
            size: 44,
          },
        ],
        series: [
          { label: 'Day', value: (_u, i) => (i === null ? '' : (labels[i] ?? '')) },
          {
            label: 'Conversations',
            stroke: '#7c3aed',
            width: 2,
            fill: 'rgba(124,58,237,0.08)',
            points: { show: labels.length <= 31 },
          },
          { label: 'Messages', stroke: '#0ea5e9', width: 2, points: { show: labels.length <= 31 } },
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      },
      [xs, series.conversations, series.messages],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: plot.height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series]);
  return <div class="chart" ref={box} role="img" aria-label={title} data-testid="daily-chart" />;
}
