-- Releases the read side of a read/write lock whose minimum hold (holdAtLeast) has not ended yet: the read
-- share stays, owned by nobody, until then. Only the reader can (the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: what is left of the minimum hold, in milliseconds (at least 1)
-- Returns -1 when the owner holds no read hold (never acquired, or lost: nothing is changed); 0 when done:
--         the reader is replaced by reader "~<owner id>" until then (writers wait for it as for any reader).
local key, owner = KEYS[1], ARGV[1]
local now = rw_now()
local s = rw_load(key, now)
if s.foreign or not s.readers[owner] then
    return -1
end
local kept = '~' .. owner
local deadline = now + tonumber(ARGV[2])
if s.readers[kept] and s.readers[kept] > deadline then
    deadline = s.readers[kept]
end
redis.call('HDEL', key, 'r:' .. owner, 't:' .. owner)
s.readers[owner] = nil
redis.call('HSET', key, 'r:' .. kept, 1, 't:' .. kept, deadline)
s.readers[kept] = deadline
rw_finish(key, s, now)
return 0
