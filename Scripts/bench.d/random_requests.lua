-- Questions nobody asked before, for `Scripts/bench serve`: each request a random one, from a seeded generator, so
-- two servers (bridget and Datasette) are asked the same sequence. Arguments after wrk's `--`:
--   MODE SEED [FIRST_DAY LAST_DAY]
-- MODE:
--   events     GET /v1/bridges/B/events?limit=100&until=T: a random bridge, the 100 openings before a random instant
--              of the history (FIRST_DAY to LAST_DAY, YYYY-MM-DD)
--   datasette  the same questions of Datasette's table URL (opened_at__lt, sorted newest first, 100 rows, no count)
--   forecast   GET /v1/bridges/B/forecast?at=T&window=W: a random bridge, a random minute of the week after
--              FIRST_DAY, a window of 10, 20, 30 or 60 minutes
--   mix        60% events, 40% forecasts, in a seeded order
-- Each wrk thread draws from SEED plus its number; the report is Scripts/bench.d/wrk_report.lua's.
local bridges = { "1", "2", "3", "4", "6", "21", "29" }
local windows = { "10m", "20m", "30m", "60m" }
local threads = {}
local counter = 0

setup = function(thread)
  counter = counter + 1
  thread:set("number", counter)
  table.insert(threads, thread)
end

local mode, first_day, last_day

-- Days since 1970-01-01 of a YYYY-MM-DD date (proleptic Gregorian).
local function day_number(text)
  local y, m, d = text:match("(%d+)-(%d+)-(%d+)")
  y, m, d = tonumber(y), tonumber(m), tonumber(d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- The date of a day number, as YYYY-MM-DD.
local function date_text(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  return string.format("%04d-%02d-%02d", y, m, d)
end

init = function(args)
  mode = args[1] or "events"
  math.randomseed(tonumber(args[2] or "1") * 1000 + (number or 0))
  first_day = day_number(args[3] or "2002-01-01")
  last_day = day_number(args[4] or "2026-10-31")
end

local function random_instant()
  local day = math.random(first_day, last_day)
  return date_text(day), math.random(0, 23), math.random(0, 59)
end

local function events_path()
  local bridge = bridges[math.random(#bridges)]
  local date, hour, minute = random_instant()
  return string.format("/v1/bridges/%s/events?limit=100&until=%sT%02d:%02d:00Z", bridge, date, hour, minute)
end

local function datasette_path()
  local bridge = bridges[math.random(#bridges)]
  local date, hour, minute = random_instant()
  return string.format(
    "/serve/events.json?bridge_id=%s&opened_at__lt=%sT%02d:%02d:00.000Z&_sort_desc=opened_at&_size=100&_nocount=1&_nofacet=1",
    bridge, date, hour, minute)
end

local function forecast_path()
  local bridge = bridges[math.random(#bridges)]
  local day = first_day + math.random(0, 6)
  return string.format("/v1/bridges/%s/forecast?at=%sT%02d:%02d&window=%s", bridge, date_text(day),
    math.random(0, 23), math.random(0, 59), windows[math.random(#windows)])
end

request = function()
  local path
  if mode == "events" then
    path = events_path()
  elseif mode == "datasette" then
    path = datasette_path()
  elseif mode == "forecast" then
    path = forecast_path()
  else
    if math.random() < 0.6 then path = events_path() else path = forecast_path() end
  end
  return wrk.format("GET", path)
end

-- The closing report: Scripts/bench.d/wrk_report.lua's, beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk_report.lua")
