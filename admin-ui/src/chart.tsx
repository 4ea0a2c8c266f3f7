import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface DailySeries {
  /** one label per day, e.g. "Nov 01" */
  labels: string[];
  conversations: number[];
  messages: number[];
}

/**
 * Conversations and messages per day as a uPlot line chart (canvas; uPlot sets its element
 * styles through the CSSOM, so it runs under the CSP without inline styles). X is the day's index;
 * the axis prints its label. It follows its container's width.
 */
export function DailyChart({ series, title }: { series: DailySeries; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { labels } = series;
    const xs = labels.map((_, i) => i);
    const step = Math.max(1, Math.ceil(labels.length / 8));
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
            splits: () => xs.filter((i) => (labels.length - 1 - i) % step === 0),
            values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
            size: 36,
          },
          { stroke: '#4b5563', grid: { stroke: '#e5e7eb', width: 1 }, values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')), size: 44 },
        ],
        series: [
          { label: 'Day', value: (_u, i) => (i === null ? '' : (labels[i] ?? '')) },
          { label: 'Conversations', stroke: '#7c3aed', width: 2, fill: 'rgba(124,58,237,0.08)', points: { show: labels.length <= 31 } },
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
