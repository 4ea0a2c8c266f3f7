import { FIELD_MAX } from '../../field-limits.js';
import { inputValue } from '../../ui.js';
import { Toggle } from './inputs.js';
import type { OfficeHours, SectionProps, TimeRange, Weekday } from './model.js';
import { Section } from './section.js';

const DAYS: Array<[Weekday, string]> = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
];
/** as the server allows (docs/API-NOTES.md "Office hours and availability") */
const MAX_RANGES = 4;

/** The time zones this browser knows (the server checks against its own list, the same IANA names). */
function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** New office hours: this browser's zone, Monday to Friday 9 to 5. */
function defaultHours(): OfficeHours {
  const weekday = [{ from: '09:00', to: '17:00' }];
  return {
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    days: { mon: weekday, tue: weekday, wed: weekday, thu: weekday, fri: weekday, sat: [], sun: [] },
  };
}

/**
 * When a visitor asking for a person can get one: always, or within these hours in one time
 * zone. Outside them, or with everyone of the team away, the widget offers its contact form at once.
 */
export function HoursSection(common: SectionProps) {
  return (
    <Section
      id="hours"
      description="Outside these hours, or while everyone of the team is away, a visitor who asks for a person gets the contact form at once, with when you are back."
      {...common}
    >
      {(d, set) => {
        const hours = d.office_hours ?? null;
        const setDay = (day: Weekday, ranges: TimeRange[]) =>
          hours && set('office_hours', { ...hours, days: { ...hours.days, [day]: ranges } });
        return (
          <>
            <Toggle
              label="Only during office hours"
              hint="Off: a person can be asked for at any time (while someone of the team is online)."
              checked={hours !== null}
              onChange={(on) => set('office_hours', on ? defaultHours() : null)}
            />
            {hours && (
              <>
                <label class="field">
                  <span class="field-label">Time zone</span>
                  <select
                    value={hours.time_zone}
                    onChange={(e) => set('office_hours', { ...hours, time_zone: e.currentTarget.value })}
                  >
                    {timeZones().map((z) => (
                      <option key={z} value={z}>
                        {z.replace(/_/g, ' ')}
                      </option>
                    ))}
                  </select>
                </label>
                <div class="stack" role="group" aria-label="Opening hours per day">
                  {DAYS.map(([day, name]) => (
                    <DayRanges key={day} name={name} ranges={hours.days[day]} onChange={(r) => setDay(day, r)} />
                  ))}
                </div>
                <p class="field-hint">Times as HH:MM, 24:00 for the end of the day. A day without hours is closed.</p>
              </>
            )}
          </>
        );
      }}
    </Section>
  );
}

function DayRanges(props: { name: string; ranges: TimeRange[]; onChange: (ranges: TimeRange[]) => void }) {
  const { name, ranges, onChange } = props;
  const change = (i: number, key: keyof TimeRange, value: string) =>
    onChange(ranges.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  const last = ranges[ranges.length - 1];
  return (
    <div class="hours-day" role="group" aria-label={name}>
      <span class="hours-day-name">{name}</span>
      <div class="hours-ranges">
        {ranges.length === 0 && <span class="muted">Closed</span>}
        {ranges.map((r, i) => (
          // ranges have no id: their place is their identity
          <span key={i} class="hours-range">
            <input
              aria-label={`${name} opens`}
              class="hours-time"
              inputMode="numeric"
              maxLength={FIELD_MAX.agent.office_hours_time}
              placeholder="09:00"
              value={r.from}
              onInput={(e) => change(i, 'from', inputValue(e))}
            />
            <span aria-hidden="true">–</span>
            <input
              aria-label={`${name} closes`}
              class="hours-time"
              inputMode="numeric"
              maxLength={FIELD_MAX.agent.office_hours_time}
              placeholder="17:00"
              value={r.to}
              onInput={(e) => change(i, 'to', inputValue(e))}
            />
            <button
              type="button"
              class="btn btn-small"
              aria-label={`Remove ${name} ${r.from}–${r.to}`}
              onClick={() => onChange(ranges.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </span>
        ))}
        {ranges.length < MAX_RANGES && (
          <button
            type="button"
            class="btn btn-small"
            aria-label={`Add hours on ${name}`}
            onClick={() =>
              onChange([
                ...ranges,
                last ? { from: last.to === '24:00' ? '23:00' : last.to, to: '24:00' } : { from: '09:00', to: '17:00' },
              ])
            }
          >
            Add hours
          </button>
        )}
      </div>
    </div>
  );
}
