-- Releases a reentrant lock whose minimum hold (holdAtLeast) has not ended yet: the lock stays taken, by
-- nobody, until then. Only its owner can.
-- KEYS[1]: the lock's hash (fields: see reentrant_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: what is left of the minimum hold, in milliseconds (at least 1): the key's TTL from now on
-- Returns -1 when the owner holds no hold (never acquired, or lost: nothing is changed); 0 when done.
-- The owner's field is dropped (so not even the same thread re-enters it), '~k' keeps the hash taken, and its
-- waiters try again when the key expires.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return -1
end
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('hset', KEYS[1], '~k', 1)
redis.call('pexpire', KEYS[1], ARGV[2])
return 0
