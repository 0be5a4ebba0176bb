-- Releases holds of a reentrant lock; only its owner can (the fence.lua and reentrant_common.lua functions are
-- prepended).
-- Its last release passes the lock on: to the instance that waited longest in Redis, or else to the next
-- thread of the owner's own client (ARGV[4]), or else frees it.
-- KEYS[1]: the lock's hash (fields: see reentrant_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the release channel; grants are published on "<ARGV[2]>:<client id>"
-- ARGV[3]: how many holds to release (the client's last release passes more than it may
--          have: a re-entry whose outcome it never learnt, say a timed-out round trip that ran, is released too)
-- ARGV[4]: optional: the owner id (an acquisition attempt) to hand the lock to when this release frees it and no other instance waits
--          for it (a thread of the same client queued for it)
-- ARGV[5]: with ARGV[4]: that owner's lease in milliseconds
-- Returns {result, token}: result -1 when the owner holds no hold (never acquired, or lost: nothing is changed);
--         -2 when the lock was handed over to ARGV[4]: it holds it once, for its lease, with that fencing token;
--         otherwise the holds left (0: the lock is freed, or granted to a waiting instance); token 0 but for a
--         hand-over.
-- An uncontended release publishes nothing.
-- the holder's count and whether the hash has a token field, in one read (an uncontended release: 3 commands)
local held = redis.call('hmget', KEYS[1], ARGV[1], '~f')
local count = held[1]
local fenced = held[2] and 1 or 0
if not count then
    return { -1, 0 }
end
local left = tonumber(count) - tonumber(ARGV[3])
if left > 0 then
    redis.call('hset', KEYS[1], ARGV[1], left)
    return { left, 0 }
end
-- only the holder (and '~f'): no other instance waits
if ARGV[4] and redis.call('hlen', KEYS[1]) == 1 + fenced then
    redis.call('hset', KEYS[1], ARGV[4], 1)
    redis.call('hdel', KEYS[1], ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[5])
    return { -2, fence_next(KEYS[1]) }
end
rl_free(KEYS[1], ARGV[1], ARGV[2], fenced)
return { 0, 0 }
