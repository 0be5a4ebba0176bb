-- Releases a semaphore's permit whose minimum hold (holdAtLeast) has not ended yet: the permit stays taken, by
-- nobody, until then. Only its owner can (the sem_common.lua functions are prepended).
-- KEYS[1]: the semaphore's hash (fields: see sem_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: what is left of the minimum hold, in milliseconds (at least 1)
-- Returns -1 when the owner holds no permit (never acquired, or lost: nothing is changed); 0 when done: the
--         holder is replaced by holder "~<owner id>" until then, which counts as a holder like any other.
local key, owner = KEYS[1], ARGV[1]
local now = sem_now()
local mine = redis.call('HGET', key, 'h:' .. owner)
if not mine then
    return -1
end
local deadline = sem_holder(mine)
if deadline <= now then
    return -1
end
local kept = now + tonumber(ARGV[2])
redis.call('HDEL', key, 'h:' .. owner)
redis.call('HSET', key, 'h:~' .. owner, string.format('%d:0', kept))
sem_expire_at_least(key, kept, now)
return 0
