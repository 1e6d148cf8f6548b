// The Redis directory's Lua scripts: each runs atomically in Redis, so a claim checks and takes
// a room's place in one step, whichever process sends it. Keys are `${prefix}…`: rooms (hash
// id → listing JSON), clients (hash id → seats), type:<t> and procrooms:<p> (sets of ids),
// code:<c> → id, seat:<token> (hash), req:<requestId> → token, roomseats:<id> (set), lapse
// (sorted set of unused seats by lapse time), proc:<p> (heartbeat, with a TTL), procs (set),
// version (counter), seq (room creation order); changes are published on `${prefix}changes`.
// Times are Redis's own clock (TIME), so the processes' clocks need not agree: callers pass
// durations ("lapse in d ms"), and answers carry Redis's `now` to convert back.

const HELPERS = `
local P = ARGV[1]
local function nowms() local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local function listing(id)
  if not id then return nil end
  local j = redis.call('HGET', P .. 'rooms', id)
  if not j then return nil end
  local r = cjson.decode(j)
  r.clients = tonumber(redis.call('HGET', P .. 'clients', id) or '0')
  return r
end
local function emit(kind, r)
  local v = redis.call('INCR', P .. 'version')
  redis.call('PUBLISH', P .. 'changes', cjson.encode({ version = v, kind = kind, room = r }))
  return v
end
local function seatOf(token)
  local s = redis.call('HGETALL', P .. 'seat:' .. token)
  if #s == 0 then return nil end
  local seat = { token = token }
  for i = 1, #s, 2 do seat[s[i]] = s[i + 1] end
  seat.used = seat.used == '1'
  seat.expiresAt = tonumber(seat.expiresAt)
  return seat
end
local function existing(requestId)
  local token = redis.call('GET', P .. 'req:' .. requestId)
  if not token then return nil end
  local seat = seatOf(token)
  if not seat then return nil end
  local r = listing(seat.roomId)
  if not r then return nil end
  return cjson.encode({ seat = seat, room = r, existing = true, now = nowms() })
end
local function addSeat(r, requestId, token, delta)
  local exp = nowms() + delta
  redis.call('HSET', P .. 'seat:' .. token, 'requestId', requestId, 'roomId', r.roomId, 'used', '0', 'expiresAt', exp)
  redis.call('SET', P .. 'req:' .. requestId, token)
  redis.call('SADD', P .. 'roomseats:' .. r.roomId, token)
  redis.call('ZADD', P .. 'lapse', exp, token)
  r.clients = redis.call('HINCRBY', P .. 'clients', r.roomId, 1)
  return { token = token, requestId = requestId, roomId = r.roomId, used = false, expiresAt = exp }
end
local function dropSeat(token)
  local seat = seatOf(token)
  if not seat then return nil end
  redis.call('DEL', P .. 'seat:' .. token)
  if redis.call('GET', P .. 'req:' .. seat.requestId) == token then redis.call('DEL', P .. 'req:' .. seat.requestId) end
  redis.call('SREM', P .. 'roomseats:' .. seat.roomId, token)
  redis.call('ZREM', P .. 'lapse', token)
  return seat
end
local function release(token)
  local seat = dropSeat(token)
  if not seat then return nil end
  local r = listing(seat.roomId)
  if r then
    r.clients = redis.call('HINCRBY', P .. 'clients', r.roomId, -1)
    emit('update', r)
  end
  return seat
end
local function removeRoom(id)
  local r = listing(id)
  if not r then return {} end
  local dropped = {}
  for _, token in ipairs(redis.call('SMEMBERS', P .. 'roomseats:' .. id)) do
    local seat = dropSeat(token)
    if seat then table.insert(dropped, seat) end
  end
  redis.call('DEL', P .. 'roomseats:' .. id)
  redis.call('HDEL', P .. 'rooms', id)
  redis.call('HDEL', P .. 'clients', id)
  redis.call('SREM', P .. 'type:' .. r.type, id)
  redis.call('SREM', P .. 'procrooms:' .. r.processId, id)
  if r.code then redis.call('DEL', P .. 'code:' .. r.code) end
  emit('remove', r)
  return dropped
end
`;

/**
 * ARGV: prefix, requestId, token, lapse delta ms, roomId ('' = none), code ('' = none), type, filter JSON, and the
 * heartbeat TTL left (ms) below which a process is late: a search (no roomId, no code) skips the rooms of late processes,
 * a join by id or code of one is refused ('late').
 */
export const CLAIM = `${HELPERS}
local e = existing(ARGV[2])
if e then return e end
local floor = tonumber(ARGV[9])
local live = {}
local function alive(p)
  if live[p] == nil then live[p] = redis.call('PTTL', P .. 'proc:' .. p) >= floor end
  return live[p]
end
local r
if ARGV[5] ~= '' or ARGV[6] ~= '' then
  local id = ARGV[5]
  if id == '' then id = redis.call('GET', P .. 'code:' .. ARGV[6]) end
  if id then r = listing(id) end
  if not r then return cjson.encode({ refused = 'not-found' }) end
  if r.locked then return cjson.encode({ refused = 'locked' }) end
  if r.clients >= r.maxClients then return cjson.encode({ refused = 'full' }) end
  if not alive(r.processId) then return cjson.encode({ refused = 'late' }) end
else
  local filter = cjson.decode(ARGV[8])
  for _, id in ipairs(redis.call('SMEMBERS', P .. 'type:' .. ARGV[7])) do
    local c = listing(id)
    if c and not c.private and not c.locked and c.clients < c.maxClients and alive(c.processId) then
      local ok = true
      for k, v in pairs(filter) do if c.metadata[k] ~= v then ok = false break end end
      if ok and (r == nil or c.clients > r.clients or (c.clients == r.clients and c.seq < r.seq)) then r = c end
    end
  end
  if not r then return cjson.encode({ refused = 'no-room' }) end
end
local seat = addSeat(r, ARGV[2], ARGV[3], tonumber(ARGV[4]))
emit('update', r)
return cjson.encode({ seat = seat, room = r, existing = false, now = nowms() })
`;

/** ARGV: prefix, listing JSON, requestId, token, lapse delta ms. */
export const ADD_ROOM = `${HELPERS}
local e = existing(ARGV[3])
if e then return e end
local r = cjson.decode(ARGV[2])
r.clients = nil
r.seq = redis.call('INCR', P .. 'seq')
redis.call('HSET', P .. 'rooms', r.roomId, cjson.encode(r))
redis.call('HSET', P .. 'clients', r.roomId, 0)
redis.call('SADD', P .. 'type:' .. r.type, r.roomId)
redis.call('SADD', P .. 'procrooms:' .. r.processId, r.roomId)
if r.code then redis.call('SET', P .. 'code:' .. r.code, r.roomId) end
r.clients = 0
local seat = addSeat(r, ARGV[3], ARGV[4], tonumber(ARGV[5]))
emit('add', r)
return cjson.encode({ seat = seat, room = r, existing = false, now = nowms() })
`;

/** ARGV: prefix, roomId, '1' | '0'. */
export const SET_LOCKED = `${HELPERS}
local r = listing(ARGV[2])
if not r then return 0 end
local locked = ARGV[3] == '1'
if r.locked == locked then return 0 end
local clients = r.clients
r.clients = nil
r.locked = locked
redis.call('HSET', P .. 'rooms', r.roomId, cjson.encode(r))
r.clients = clients
emit('update', r)
return 1
`;

/** ARGV: prefix, roomId. */
export const REMOVE_ROOM = `${HELPERS}
return cjson.encode({ seats = removeRoom(ARGV[2]), now = nowms() })
`;

/** ARGV: prefix, token, '1' | '0', lapse delta ms. */
export const MARK_USED = `${HELPERS}
if redis.call('EXISTS', P .. 'seat:' .. ARGV[2]) == 0 then return 0 end
if ARGV[3] == '1' then
  redis.call('HSET', P .. 'seat:' .. ARGV[2], 'used', '1')
  redis.call('ZREM', P .. 'lapse', ARGV[2])
else
  local exp = nowms() + tonumber(ARGV[4])
  redis.call('HSET', P .. 'seat:' .. ARGV[2], 'used', '0', 'expiresAt', exp)
  redis.call('ZADD', P .. 'lapse', exp, ARGV[2])
end
return 1
`;

/** ARGV: prefix, token. */
export const RELEASE = `${HELPERS}
release(ARGV[2])
return 1
`;

/** ARGV: prefix. Unused seats past their time; returns them. */
export const EXPIRE = `${HELPERS}
local out = {}
for _, token in ipairs(redis.call('ZRANGEBYSCORE', P .. 'lapse', '-inf', nowms())) do
  local seat = release(token)
  if seat then table.insert(out, seat) end
end
return cjson.encode({ seats = out, now = nowms() })
`;

/** ARGV: prefix, processId, record JSON, ttl ms. Returns 1 when the process was not registered (new, or lapsed: re-register its rooms). */
export const HEARTBEAT = `${HELPERS}
local fresh = redis.call('EXISTS', P .. 'proc:' .. ARGV[2]) == 0
redis.call('SET', P .. 'proc:' .. ARGV[2], ARGV[3], 'PX', tonumber(ARGV[4]))
redis.call('SADD', P .. 'procs', ARGV[2])
if fresh then return 1 end
return 0
`;

/** ARGV: prefix. Removes the rooms of processes whose heartbeat lapsed; returns their ids. */
export const REAP = `${HELPERS}
local removed = {}
for _, p in ipairs(redis.call('SMEMBERS', P .. 'procs')) do
  if redis.call('EXISTS', P .. 'proc:' .. p) == 0 then
    for _, id in ipairs(redis.call('SMEMBERS', P .. 'procrooms:' .. p)) do
      removeRoom(id)
      table.insert(removed, id)
    end
    redis.call('DEL', P .. 'procrooms:' .. p)
    redis.call('SREM', P .. 'procs', p)
  end
end
return cjson.encode(removed)
`;

/** ARGV: prefix, listing JSON, JSON array of the seats its connections hold ([token, requestId] pairs). After Redis lost its data. */
export const RESTORE_ROOM = `${HELPERS}
local r = cjson.decode(ARGV[2])
if listing(r.roomId) then return 0 end
r.clients = nil
r.seq = redis.call('INCR', P .. 'seq')
redis.call('HSET', P .. 'rooms', r.roomId, cjson.encode(r))
redis.call('SADD', P .. 'type:' .. r.type, r.roomId)
redis.call('SADD', P .. 'procrooms:' .. r.processId, r.roomId)
if r.code then redis.call('SET', P .. 'code:' .. r.code, r.roomId) end
local held = cjson.decode(ARGV[3])
for _, pair in ipairs(held) do
  redis.call('HSET', P .. 'seat:' .. pair[1], 'requestId', pair[2], 'roomId', r.roomId, 'used', '1', 'expiresAt', nowms())
  redis.call('SET', P .. 'req:' .. pair[2], pair[1])
  redis.call('SADD', P .. 'roomseats:' .. r.roomId, pair[1])
end
redis.call('HSET', P .. 'clients', r.roomId, #held)
r.clients = #held
emit('add', r)
return 1
`;
