-- Withdraws a waiter's place in a semaphore's queue when it gives up (the fence.lua and sem_common.lua
-- functions are prepended). If a permit was granted to it meanwhile (or a try whose reply was lost took one),
-- that permit is freed as a release would: granted to the next waiter.
-- KEYS[1]: the semaphore's hash (fields: see sem_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the release channel; grants are published on "<ARGV[2]>:<client id>"
-- Returns 1 when a permit of the owner was freed; 0 otherwise (its entry, if any, is deleted).
local key, owner = KEYS[1], ARGV[1]
if redis.call('HDEL', key, 'q:' .. owner) == 1 then
    return 0
end
if redis.call('HDEL', key, 'h:' .. owner) == 1 then
    sem_free(key, ARGV[2], sem_now())
    return 1
end
return 0
