-- Extends the write holder's lease (the watchdog; the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds
-- Returns 1 when extended (never shortened); 0 when the owner no longer holds the write side (it was lost).
local key, owner, lease = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = rw_now()
local s = rw_load(key, now)
if s.foreign or s.writer ~= owner then
    return 0
end
s.wt = rw_extend(key, 'wt', s.wt, lease, now)
rw_finish(key, s, now)
return 1
