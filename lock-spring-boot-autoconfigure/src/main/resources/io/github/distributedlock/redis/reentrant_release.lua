-- Releases holds of a reentrant lock; only its owner can.
-- KEYS[1]: the lock's hash; one field per owner id, its value the owner's hold count, and "~w" if
--          someone waited for it
-- ARGV[1]: owner id, "<client id>:<thread id>"
-- ARGV[2]: the channel that release notifications are published on
-- ARGV[3]: how many holds to release (1, or all of them at shutdown)
-- Returns -1 when the owner holds no hold (never acquired, or lost: nothing is changed);
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
redis.call('del', KEYS[1])
if waited then
    redis.call('publish', ARGV[2], KEYS[1])
end
return 0
