-- Redlock, phase 2 on one node: records the fencing token an attempt chose (one more than the greatest counter
-- of the votes it was granted), while that attempt still holds the key here.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- KEYS[2]: the key's fencing-token counter on this node (persistent, no TTL)
-- ARGV[1]: the attempt id
-- ARGV[2]: the token
-- Returns 1 when recorded: the counter is at least the token from now on (it is raised, never lowered); 0 when
--         the attempt no longer holds the key here (its lease ended, or it released), and nothing changes.
-- Idempotent: a repeated record of the same attempt and token changes nothing more.
if redis.call('hget', KEYS[1], 'owner') ~= ARGV[1] then
    return 0
end
local counter = tonumber(redis.call('get', KEYS[2]) or '0')
if tonumber(ARGV[2]) > counter then
    redis.call('set', KEYS[2], ARGV[2])
end
redis.call('hset', KEYS[1], 'token', ARGV[2])
return 1
