-- Releases read holds of a read/write lock; only their owner can (the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the channel that release notifications are published on
-- ARGV[3]: how many read holds to release (the client's last release passes more than it may
--          have: a re-entry whose outcome it never learnt, say a timed-out round trip that ran, is released too)
-- Returns -1 when the owner holds no read hold (never acquired, or lost: nothing is changed);
--         otherwise the read holds left (0: this reader left; when it was the last holder and someone waited,
--         the key is published on ARGV[2] so waiting writers try again).
local key, owner = KEYS[1], ARGV[1]
local now = rw_now()
local n = rw_summary(key, now)
if n and n >= 2 and redis.call('HEXISTS', key, 'r:' .. owner) == 1 then
    -- the fast path (see rw_common.lua): other readers stay (none has expired), so nothing is published and
    -- the key lives on; the last reader's release takes the full path
    local left = redis.call('HINCRBY', key, 'r:' .. owner, -tonumber(ARGV[3]))
    if left > 0 then
        return left
    end
    redis.call('HDEL', key, 'r:' .. owner, 't:' .. owner)
    redis.call('HSET', key, '~n', n - 1)
    return 0
end
local s = rw_load(key, now)
if s.foreign or not s.readers[owner] then
    return -1
end
local left = redis.call('HINCRBY', key, 'r:' .. owner, -tonumber(ARGV[3]))
if left > 0 then
    return left
end
redis.call('HDEL', key, 'r:' .. owner, 't:' .. owner)
s.readers[owner] = nil
s.nreaders = s.nreaders - 1
if s.nreaders == 0 and not s.writer then
    rw_publish(key, s, ARGV[2])
end
rw_finish(key, s, now)
return 0
