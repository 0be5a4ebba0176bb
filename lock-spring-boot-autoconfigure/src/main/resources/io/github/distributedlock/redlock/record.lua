-- Redlock, phase 2 on one node: records the fencing token an attempt chose (one more than the greatest token basis
-- among every node that answered its vote, granting or refusing). Sent to every node that answered the vote, only
-- when the token the vote proposed (vote.lua, ARGV[4]) was not above all those bases: otherwise the votes recorded it.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- KEYS[2]: the key's fencing-token counter on this node (persistent, no TTL)
-- ARGV[1]: the attempt id
-- ARGV[2]: the token
-- On every node the counter is raised to the token (never lowered), whoever holds the key here: a node that refused
-- the attempt carries its token to a later quorum too, so a later quorum meets it unless a majority lost it.
-- Returns 1 when the attempt holds the key here: the token is also recorded on its hash (field 'token'); 0 when it
--         does not (another attempt holds it, its lease ended, or it released): only the counter was raised.
-- Idempotent: a repeated record of the same attempt and token changes nothing more.
local counter = tonumber(redis.call('get', KEYS[2]) or '0')
if tonumber(ARGV[2]) > counter then
    redis.call('set', KEYS[2], ARGV[2])
end
if redis.call('hget', KEYS[1], 'owner') ~= ARGV[1] then
    return 0
end
redis.call('hset', KEYS[1], 'token', ARGV[2])
return 1
