/**
 * Durations are written one way in src/: a count and its unit, in milliseconds
 * (`minutesMs(90)`, never `90 * 60 * 1000`), so a reader never multiplies to know how long.
 */
export const secondsMs = (seconds: number): number => seconds * 1000;
export const minutesMs = (minutes: number): number => minutes * secondsMs(60);
export const hoursMs = (hours: number): number => hours * minutesMs(60);
export const daysMs = (days: number): number => days * hoursMs(24);
