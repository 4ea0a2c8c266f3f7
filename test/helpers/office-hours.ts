/** Office hours the office-hours suites set: Berlin, Monday 9 to 5, Tuesday with a lunch break 12 to 1. */
export const WEEKDAY_HOURS = {
  time_zone: 'Europe/Berlin',
  days: {
    mon: [{ from: '09:00', to: '17:00' }],
    tue: [
      { from: '09:00', to: '12:00' },
      { from: '13:00', to: '17:00' },
    ],
  },
};
