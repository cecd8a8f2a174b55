-- Questions nobody asked before, for `Scripts/bench serve`: each request a random one, from a seeded generator, so
-- two servers (bridget and Datasette) are asked the same sequence. Arguments after wrk's `--`:
--   MODE SEED [FIRST_DAY LAST_DAY [COUNT]]
-- MODE:
--   events     GET /v1/bridges/B/events?limit=100&until=T: a random bridge, the 100 openings before a random instant
--              of the history (FIRST_DAY to LAST_DAY, YYYY-MM-DD)
--   datasette  the same questions of Datasette's table URL (opened_at__lt, sorted newest first, 100 rows, no count)
--   forecast   GET /v1/bridges/B/forecast?at=T&window=W: a random bridge, a random minute of the week after
--              LAST_DAY (the history's end: what a client asks about), a window of 10, 20, 30 or 60 minutes
--   mix        60% events, 40% forecasts, in a seeded order; an events request follows the cursor of the
--              connection's last page (its next page) one time in three
--   distinct   URLs never asked before (events pages and forecasts by turns), COUNT a thread, thread k numbering
--              from SEED + k * 10,000,000: the server's memory after so many questions (a run from a higher SEED
--              asks none of a lower one's)
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

local mode, first_day, last_day, seed, count
local asked, last_page = 0, nil

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
  seed = tonumber(args[2] or "1")
  math.randomseed(seed * 1000 + (number or 0))
  first_day = day_number(args[3] or "2002-01-01")
  last_day = day_number(args[4] or "2026-10-31")
  count = tonumber(args[5] or "1000")
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
  local day = last_day + math.random(1, 7)
  return string.format("/v1/bridges/%s/forecast?at=%sT%02d:%02d&window=%s", bridge, date_text(day),
    math.random(0, 23), math.random(0, 59), windows[math.random(#windows)])
end

-- The n-th URL of the distinct sequence: events pages ending a minute apart, and forecasts a minute apart, each
-- for one bridge after another.
local function distinct_path(n)
  local bridge = bridges[n % #bridges + 1]
  local minute = math.floor(n / 2)
  if n % 2 == 0 then
    local day = first_day + math.floor(minute / 1440)
    return string.format("/v1/bridges/%s/events?limit=100&until=%sT%02d:%02d:00Z", bridge, date_text(day),
      math.floor(minute % 1440 / 60), minute % 60)
  end
  local day = last_day + 1 + math.floor(minute / 1440) % 7
  return string.format("/v1/bridges/%s/forecast?at=%sT%02d:%02d&window=%dm", bridge, date_text(day),
    math.floor(minute % 1440 / 60), minute % 60, 10 + math.floor(minute / 10080))
end

request = function()
  local path
  if mode == "distinct" then
    path = distinct_path(seed + number * 10000000 + asked)
    asked = asked + 1
  elseif mode == "events" then
    path = events_path()
  elseif mode == "datasette" then
    path = datasette_path()
  elseif mode == "forecast" then
    path = forecast_path()
  else
    if math.random() < 0.6 then
      if last_page and math.random() < 1 / 3 then path = last_page else path = events_path() end
    else
      path = forecast_path()
    end
  end
  return wrk.format("GET", path)
end

-- The mix follows cursors: the next page of the connection's last events page; distinct stops at its count.
response = function(status, headers, body)
  if mode == "mix" then
    -- `next` is the next page's URL, relative to the server.
    last_page = body:match('"next" : "([^"]+)"')
  elseif mode == "distinct" and asked >= count then
    wrk.thread:stop()
  end
end

-- The closing report: Scripts/bench.d/wrk_report.lua's, beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk_report.lua")
