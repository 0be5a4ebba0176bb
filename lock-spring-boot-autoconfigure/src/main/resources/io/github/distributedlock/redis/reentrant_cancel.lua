-- Withdraws a waiter's place in the queue of a reentrant lock when it gives up (the fence.lua and
-- reentrant_common.lua functions are prepended). If the lock was granted to it meanwhile, that grant passes on as a release would.
-- KEYS[1]: the lock's hash (fields: see reentrant_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the release channel; grants are published on "<ARGV[2]>:<client id>"
-- Returns 1 when a grant to the owner was passed on; 0 otherwise (its entry, if any, is deleted).
if redis.call('hdel', KEYS[1], 'q:' .. ARGV[1]) == 1 then
    return 0
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
    rl_free(KEYS[1], ARGV[1], ARGV[2])
    return 1
end
return 0
