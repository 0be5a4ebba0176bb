-- Releases write holds of a read/write lock; only the writer can (the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the channel that release notifications are published on
-- ARGV[3]: how many write holds to release (the client's last release passes more than it may
--          have: a re-entry whose outcome it never learnt, say a timed-out round trip that ran, is released too)
-- ARGV[4]: admission in milliseconds: the readers waiting now are admitted, before the next writer, for
--          this long
-- Returns -1 when the owner is not the write holder (never acquired, or lost: nothing is changed);
--         otherwise the write holds left (0: the write side is free and, if someone waited, the key is
--         published on ARGV[2], waking every waiting reader at once; the owner's read holds, after a
--         downgrade, remain).
local key, owner = KEYS[1], ARGV[1]
local now = rw_now()
local s = rw_load(key, now)
if s.foreign or s.writer ~= owner then
    return -1
end
local left = redis.call('HINCRBY', key, 'wc', -tonumber(ARGV[3]))
if left > 0 then
    return left
end
redis.call('HDEL', key, 'w', 'wc', 'wt')
s.writer = false
rw_admit_readers(key, s, tonumber(ARGV[4]), now)
rw_publish(key, s, ARGV[2])
rw_finish(key, s, now)
return 0
