-- Acquires the read side of a read/write lock, or re-enters it (the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id, "<client id>:<thread id>"
-- ARGV[2]: lease in milliseconds (this reader's own deadline)
-- ARGV[3]: "1" when the owner believes it already holds the read side (a re-entry), "0" otherwise
-- Returns -1 when acquired or re-entered (also by the write holder itself: a downgrade);
--         -2 when ARGV[3] is "1" but the owner no longer holds it (it was lost);
--         otherwise milliseconds until the blocking writer's lease or waiting writer's claim ends (retry then).
local key, owner, lease = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = rw_now()
local s = rw_load(key, now)
if s.foreign then
    return redis.call('PTTL', key)
end
if s.readers[owner] then
    -- a reader re-enters even while a writer waits: it could not finish otherwise
    redis.call('HINCRBY', key, 'r:' .. owner, 1)
    if s.readers[owner] < now + lease then
        s.readers[owner] = now + lease
        redis.call('HSET', key, 't:' .. owner, now + lease)
    end
    rw_finish(key, s, now)
    return -1
end
if ARGV[3] == '1' then
    return -2
end
if s.writer and s.writer ~= owner then
    rw_waiting(key, s)
    return s.wt - now
end
if not s.writer then
    local first = nil
    for _, d in pairs(s.waiting) do
        if first == nil or d < first then first = d end
    end
    if first then
        rw_waiting(key, s)
        return first - now
    end
end
redis.call('HSET', key, 'r:' .. owner, 1, 't:' .. owner, now + lease)
s.readers[owner] = now + lease
rw_finish(key, s, now)
return -1
