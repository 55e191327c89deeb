import { describe, expect, it } from "vitest";
import { addDays, dayOf, dayStartSeconds, daysBetween, isoOf, utcDay, weekdayOf } from "../../common/days.js";

describe("calendar days (common/days.ts)", () => {
  it("does whole-day arithmetic in UTC", () => {
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(daysBetween("2026-01-01", "2026-04-01")).toBe(90);
    expect(dayStartSeconds("1970-01-02")).toBe(86_400);
    expect(utcDay(new Date("2026-05-05T23:59:59-02:00"))).toBe("2026-05-06");
  });

  it("agree with Date on every day from 1899 to 2101, as text and as day numbers", () => {
    const names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
    for (let ms = Date.UTC(1899, 0, 1); ms <= Date.UTC(2101, 11, 31); ms += 86_400_000) {
      const iso = new Date(ms).toISOString().slice(0, 10);
      expect(dayOf(iso)).toBe(ms / 86_400_000);
      expect(isoOf(ms / 86_400_000)).toBe(iso);
      expect(dayStartSeconds(iso)).toBe(ms / 1000);
      expect(weekdayOf(ms / 86_400_000)).toBe(names[new Date(ms).getUTCDay()]);
    }
  });

  it("adds and counts days across month, year and leap-day boundaries", () => {
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
    expect(addDays("2100-02-28", 1)).toBe("2100-03-01"); // 2100 is not a leap year
    expect(addDays("2000-02-28", 1)).toBe("2000-02-29"); // 2000 is
    expect(addDays("1970-01-01", -1)).toBe("1969-12-31");
    expect(daysBetween("2026-04-01", "2026-01-01")).toBe(-90);
    expect(daysBetween("1900-01-01", "2999-12-31")).toBe(dayOf("2999-12-31") - dayOf("1900-01-01"));
  });
});
