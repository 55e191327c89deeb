/**
 * The core's clock: every decision the core makes about "now" (an expiry, a
 * record's timestamp, a cursor's age, which day "today" is, a retention
 * cutoff) reads it, so a test can set the time instead of waiting for it. A
 * statement that decides by the time takes it as a parameter from here;
 * only plain record stamps may be PostgreSQL's `now()`.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to (tests, and anything that replays time). */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date = new Date()) {
    this.ms = start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  set(at: Date): void {
    this.ms = at.getTime();
  }
}

/** Whole seconds since the epoch, as cursors and JWTs count time. */
export const epochSeconds = (clock: Clock): number => Math.floor(clock.now().getTime() / 1000);

// Domain modules receive an entity manager, not the core's dependencies; every
// fork of an ORM shares its configuration object, so the clock is found there.
const clocks = new WeakMap<object, Clock>();

/** Makes `clock` the clock of every entity manager of this ORM (done once, when the core is built). */
export function bindClock(orm: { config: object }, clock: Clock): void {
  clocks.set(orm.config, clock);
}

/** The clock of the core an entity manager belongs to (the system clock for an ORM no core was built on). */
export function clockOf(em: { config: object }): Clock {
  return clocks.get(em.config) ?? systemClock;
}

/** "Now" for a decision made with this entity manager. */
export const nowOf = (em: { config: object }): Date => clockOf(em).now();
