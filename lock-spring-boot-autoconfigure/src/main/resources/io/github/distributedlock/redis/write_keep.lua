-- Releases the write side of a read/write lock whose minimum hold (holdAtLeast) has not ended yet: the write
-- side stays taken, by nobody, until then. Only the writer can (the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: what is left of the minimum hold, in milliseconds (at least 1)
-- Returns -1 when the owner is not the write holder (never acquired, or lost: nothing is changed); 0 when
--         done: the writer is replaced by "~" until then, and waiters try again when that deadline passes.
local key, owner = KEYS[1], ARGV[1]
local now = rw_now()
local s = rw_load(key, now)
if s.foreign or s.writer ~= owner then
    return -1
end
s.writer = '~'
s.wt = now + tonumber(ARGV[2])
redis.call('HSET', key, 'w', s.writer, 'wc', 1, 'wt', s.wt)
rw_finish(key, s, now)
return 0
