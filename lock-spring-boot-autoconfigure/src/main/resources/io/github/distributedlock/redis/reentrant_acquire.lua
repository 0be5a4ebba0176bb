-- Acquires a reentrant lock, or re-enters it for its owner.
-- KEYS[1]: the lock's hash; one field per owner id, its value the owner's hold count, and the field "~w"
--          once someone waited for it (so that its release is published; see reentrant_release.lua)
-- ARGV[1]: owner id, "<client id>:<thread id>"
-- ARGV[2]: lease in milliseconds (the key's TTL)
-- ARGV[3]: "1" when the owner believes it already holds the lock (a re-entry), "0" otherwise
-- Returns -1 when acquired or re-entered;
--         -2 when ARGV[3] is "1" but the owner no longer holds it (its lease ran out: the lock was lost);
--         otherwise the holder's remaining lease in milliseconds (PTTL: -1 if the key has no TTL), after
--         marking the lock as waited for.
local lease = tonumber(ARGV[2])
if ARGV[3] == '1' then
    if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
        return -2
    end
    redis.call('hincrby', KEYS[1], ARGV[1], 1)
    -- a re-entry never shortens the lease of the outer hold
    if redis.call('pttl', KEYS[1]) < lease then
        redis.call('pexpire', KEYS[1], lease)
    end
    return -1
end
-- a fresh acquire by the owner itself finds a hold its client gave up on (its release failed): start over
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
    redis.call('hset', KEYS[1], ARGV[1], 1)
    redis.call('pexpire', KEYS[1], lease)
    return -1
end
redis.call('hset', KEYS[1], '~w', 1)
return redis.call('pttl', KEYS[1])
