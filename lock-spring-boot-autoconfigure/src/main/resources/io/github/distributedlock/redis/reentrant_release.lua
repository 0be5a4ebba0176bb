-- Releases holds of a reentrant lock; only its owner can. Its last release may hand the lock over.
-- KEYS[1]: the lock's hash; one field per owner id, its value the owner's hold count, and "~w" if
--          someone waited for it
-- ARGV[1]: owner id, "<client id>:<thread id>"
-- ARGV[2]: the channel that release notifications are published on
-- ARGV[3]: how many holds to release (1, or all of them at shutdown)
-- ARGV[4]: optional: the owner id to hand the lock to when this release frees it (a thread of the same client
--          queued for it), unless someone waited for it in Redis: then it is freed for all
-- ARGV[5]: with ARGV[4]: that owner's lease in milliseconds
-- Returns -1 when the owner holds no hold (never acquired, or lost: nothing is changed);
--         -2 when the lock was handed over: ARGV[4] holds it once, for its lease, and nothing is published;
--         otherwise the holds left (0: the lock is freed, and its key published on ARGV[2] if someone
--         waited: an uncontended release publishes nothing; waiters that lose the race mark it again).
-- The "~w" field never makes the key outlive its owner: the key is deleted with the last hold.
local count = redis.call('hget', KEYS[1], ARGV[1])
if not count then
    return -1
end
local left = tonumber(count) - tonumber(ARGV[3])
if left > 0 then
    redis.call('hset', KEYS[1], ARGV[1], left)
    return left
end
-- the lock has one owner, so any second field is the waiter mark
local waited = redis.call('hlen', KEYS[1]) > 1
if ARGV[4] and not waited then
    -- another instance waiting would be marked: handing over never passes it by
    redis.call('hset', KEYS[1], ARGV[4], 1)
    redis.call('hdel', KEYS[1], ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[5])
    return -2
end
redis.call('del', KEYS[1])
if waited then
    redis.call('publish', ARGV[2], KEYS[1])
end
return 0
