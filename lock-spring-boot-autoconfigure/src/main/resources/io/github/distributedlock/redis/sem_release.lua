-- Releases holds of a semaphore's permit; only their owner can (the fence.lua and sem_common.lua functions are
-- prepended). The last release frees the permit: it is granted to the waiter that waited longest, if any.
-- KEYS[1]: the semaphore's hash (fields: see sem_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the release channel; grants are published on "<ARGV[2]>:<client id>"
-- ARGV[3]: how many holds to release (the client's last release passes more than it may have: a re-entry
--          whose outcome it never learnt is released too)
-- Returns -1 when the owner holds no permit (never acquired, or lost: its lease ended; nothing of another
--         owner is changed); otherwise the holds left (0: the permit is freed, or granted to a waiter).
-- An uncontended release publishes nothing.
local key, owner = KEYS[1], ARGV[1]
local now = sem_now()
local mine = redis.call('HGET', key, 'h:' .. owner)
if not mine then
    return -1
end
local deadline, holds = sem_holder(mine)
if deadline <= now then
    -- its lease ended: the permit was free since then (a load deletes it and grants it)
    sem_free(key, ARGV[2], now)
    return -1
end
local left = holds - tonumber(ARGV[3])
if left > 0 then
    redis.call('HSET', key, 'h:' .. owner, string.format('%d:%d', deadline, left))
    return left
end
redis.call('HDEL', key, 'h:' .. owner)
sem_free(key, ARGV[2], now)
return 0
