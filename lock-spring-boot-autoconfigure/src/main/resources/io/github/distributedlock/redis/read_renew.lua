-- Extends one reader's own lease (the watchdog; the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds
-- Returns 1 when extended (never shortened); 0 when the owner no longer holds the read side (it was lost).
local key, owner, lease = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = rw_now()
if rw_summary(key, now) then
    -- the fast path (see rw_common.lua): no reader has expired, so a reader that is in the hash holds it
    local v = redis.call('HMGET', key, 'r:' .. owner, 't:' .. owner)
    if v[1] and v[2] then
        rw_expire_at_least(key, rw_extend(key, 't:' .. owner, tonumber(v[2]), lease, now), now)
        return 1
    end
end
local s = rw_load(key, now)
if s.foreign or not s.readers[owner] then
    return 0
end
s.readers[owner] = rw_extend(key, 't:' .. owner, s.readers[owner], lease, now)
rw_finish(key, s, now)
return 1
