-- Redlock, phase 1 on one node: the vote of this node for one acquisition attempt.
-- KEYS[1]: the lock's hash on this node (fields 'owner': the attempt id holding it, 'token': its fencing token,
--          once recorded by record.lua, 'w': set once a waiting attempt was refused, see ARGV[3]); it has the lease
--          as TTL
-- KEYS[2]: the key's fencing-token counter on this node: a persistent string (no TTL) that outlives the lock,
--          raised by record.lua, never lowered
-- KEYS[3]: this attempt's marker (release.lua sets it at every release or withdrawal of the attempt)
-- ARGV[1]: the attempt id, "<client id>:<thread id>/<attempt>" (or "<client id>:async-<n>/<attempt>")
-- ARGV[2]: the lease in milliseconds
-- ARGV[3]: optional: '1' when the attempt will wait if refused: a refusal then marks the holder's hash (field 'w'),
--          so that its release publishes (see release.lua); an uncontended release publishes nothing
-- Every answer carries this node's token basis: the greater of its token counter and its clock (TIME, in
-- microseconds). The client mints the token from the bases of every node that answered, granting or not, so a
-- token recorded on a node that refuses this attempt still counts, and a node restarted empty answers a basis
-- above the tokens minted before as long as the nodes' clocks agree to within the time between two acquisitions.
-- Returns {1, basis} when granted (also for a repeated vote of the same attempt, which changes nothing);
--         {0, pttl, owner, basis} when another attempt holds the key (its id: the client counts the nodes each
--         holder has); {0, pttl, '', basis} for a key this store did not write; {-1, 0, '', basis} when the
--         attempt was withdrawn: a late or re-sent vote (a timed-out command that Redis still runs, or one Lettuce
--         re-sends after a reconnect) never takes the lock for an attempt that gave up.
-- Idempotent: a repeated vote of the same attempt answers as the first and changes nothing more.
local time = redis.call('time')
local basis = math.max(tonumber(redis.call('get', KEYS[2]) or '0'),
    tonumber(time[1]) * 1000000 + tonumber(time[2]))
if redis.call('exists', KEYS[3]) == 1 then
    return { -1, 0, '', basis }
end
local owner = redis.call('hget', KEYS[1], 'owner')
if owner == false then
    if redis.call('exists', KEYS[1]) == 1 then
        return { 0, redis.call('pttl', KEYS[1]), '', basis }
    end
    redis.call('hset', KEYS[1], 'owner', ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[2])
elseif owner ~= ARGV[1] then
    if ARGV[3] == '1' then
        redis.call('hset', KEYS[1], 'w', '1')
    end
    return { 0, redis.call('pttl', KEYS[1]), owner, basis }
end
return { 1, basis }
