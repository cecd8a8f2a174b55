"""The pandas baseline: the figures of `bridget stats` (fragments merged) from a CSV export of the events table.

Usage: pandas_stats.py EVENTS.csv [--json]
Columns: bridge_id, open_local, opened_at, closed_at (UTC instants as stored by Bridget).
"""
import json
import math
import sys

import pandas as pd

GAP_SECONDS = 120


def nearest_rank(values, p):
    if len(values) == 0:
        return None
    rank = max(1, math.ceil(p * len(values)))
    return float(values[min(rank, len(values)) - 1])


def main():
    df = pd.read_csv(sys.argv[1], dtype={"bridge_id": str})
    df["opened"] = pd.to_datetime(df["opened_at"], utc=True, format="ISO8601")
    df["closed"] = pd.to_datetime(df["closed_at"], utc=True, format="ISO8601")
    df = df.sort_values(["bridge_id", "opened"], kind="stable")
    # A row starts a new opening unless it follows its bridge's running end by less than the gap.
    previous_end = df.groupby("bridge_id")["closed"].transform(lambda s: s.cummax().shift())
    gap = (df["opened"] - previous_end).dt.total_seconds()
    df["opening"] = (previous_end.isna() | ~(gap < GAP_SECONDS)).cumsum()
    openings = df.groupby("opening").agg(bridge=("bridge_id", "first"), start=("opened", "first"),
                                         end=("closed", "max"), local=("open_local", "first"))
    openings["minutes"] = (openings["end"] - openings["start"]).dt.total_seconds() / 60
    dates = pd.to_datetime(df["open_local"].str[:10])
    days = (dates.max() - dates.min()).days + 1
    openings["hour"] = openings["local"].str[11:13].astype(int)
    local_dates = pd.to_datetime(openings["local"].str[:10])
    openings["weekday"] = local_dates.dt.day_of_week  # Monday = 0 (`.dt.weekday` is deprecated)
    openings["month"] = local_dates.dt.month
    openings["ym"] = openings["local"].str[:7]
    openings["year"] = openings["local"].str[:4]
    span = pd.date_range(dates.min(), dates.max())
    days_per_month = span.month.value_counts()
    result = {}
    for bridge, group in openings.groupby("bridge"):
        durations = group["minutes"].dropna().sort_values().to_numpy()
        hours = group["hour"].value_counts()
        busiest = int(hours[hours == hours.max()].index.min())
        week = group.groupby(["weekday", "hour"]).size()
        by_month = group["month"].value_counts()
        result[bridge] = {
            "openings": int(len(group)),
            "openingsPerDay": len(group) / days,
            "meanMinutes": float(durations.mean()) if len(durations) else None,
            "medianMinutes": nearest_rank(durations, 0.5),
            "p90Minutes": nearest_rank(durations, 0.9),
            "maxMinutes": float(durations[-1]) if len(durations) else None,
            "busiestHour": busiest,
            "hourOfWeek": [[int(week.get((d, h), 0)) for h in range(24)] for d in range(7)],
            "openingsPerDayByMonth": [by_month.get(m, 0) / days_per_month[m] if m in days_per_month else None
                                      for m in range(1, 13)],
            "monthlyTrend": group["ym"].value_counts().to_dict(),
            "yearlyTrend": group["year"].value_counts().to_dict(),
        }
    if "--json" in sys.argv:
        print(json.dumps({"days": days, "bridges": result}, default=float))


main()
