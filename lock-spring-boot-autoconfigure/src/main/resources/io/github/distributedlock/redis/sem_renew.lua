-- Extends one holder's own lease of a semaphore's permit (the watchdog; the sem_common.lua functions are
-- prepended).
-- KEYS[1]: the semaphore's hash (fields: see sem_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds
-- Returns 1 when extended (never shortened); 0 when the owner no longer holds a permit (its lease ended or the
--         key was deleted: it was lost; another owner may hold that permit now).
local key, owner, lease = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = sem_now()
local mine = redis.call('HGET', key, 'h:' .. owner)
if not mine then
    return 0
end
local deadline, holds = sem_holder(mine)
if deadline <= now then
    return 0
end
if deadline < now + lease then
    deadline = now + lease
    redis.call('HSET', key, 'h:' .. owner, string.format('%d:%d', deadline, holds))
end
sem_expire_at_least(key, deadline, now)
return 1
