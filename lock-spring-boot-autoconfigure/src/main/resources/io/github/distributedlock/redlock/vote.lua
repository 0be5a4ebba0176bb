-- Redlock, phase 1 on one node: the vote of this node for one acquisition attempt.
-- KEYS[1]: the lock's hash on this node (fields 'owner': the attempt id holding it, 'token': its fencing token,
--          once recorded by this vote's proposal or by record.lua, 'w': set once a waiting attempt was refused, see
--          ARGV[3]); it has the lease as TTL
-- KEYS[2]: the key's fencing-token counter on this node: a persistent string (no TTL) that outlives the lock,
--          raised by a proposal (ARGV[4]) and by record.lua, never lowered
-- KEYS[3]: this attempt's marker (release.lua sets it at every release or withdrawal of the attempt)
-- ARGV[1]: the attempt id, "<client id>:<thread id>/<attempt>" (or "<client id>:async-<n>/<attempt>")
-- ARGV[2]: the lease in milliseconds
-- ARGV[3]: optional: '1' when the attempt will wait if refused: a refusal then marks the holder's hash (field 'w'),
--          so that its release publishes (see release.lua); an uncontended release publishes nothing
-- ARGV[4]: optional: the token the attempt proposes ('0' or absent: none). Above this node's basis (below), it is
--          recorded here at once, whatever the vote answers: the counter is raised to it and, on a grant, the key's
--          'token' field set to it. The client takes it as its token only if it is above the basis of every node
--          that answered; then it skips record.lua, which would have raised the same counters to a token chosen
--          from the same bases.
-- Every answer carries this node's token basis: the greater of its token counter and its clock (TIME, in
-- microseconds), read before the proposal raised anything, and then the clock. The client mints the token from the
-- bases of every node that answered, granting or not, so a token recorded on a node that refuses this attempt still
-- counts, and a node restarted empty answers a basis above the tokens minted before as long as the nodes' clocks
-- agree to within the time between two acquisitions; it estimates the nodes' clocks from the clocks answered, for
-- its next proposals.
-- Returns {1, basis, clock} when granted (also for a repeated vote of the same attempt, which changes nothing);
--         {0, pttl, owner, basis, clock} when another attempt holds the key (its id: the client counts the nodes each
--         holder has); {0, pttl, '', basis, clock} for a key this store did not write; {-1, 0, '', basis, clock} when
--         the attempt was withdrawn: a late or re-sent vote (a timed-out command that Redis still runs, or one
--         Lettuce re-sends after a reconnect) never takes the lock for an attempt that gave up.
-- Idempotent: a repeated vote of the same attempt changes nothing more (its proposal is then at most the basis).
local time = redis.call('time')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
local basis = math.max(tonumber(redis.call('get', KEYS[2]) or '0'), clock)
local proposed = (tonumber(ARGV[4] or '0') or 0) > basis
if proposed then
    redis.call('set', KEYS[2], ARGV[4])
end
if redis.call('exists', KEYS[3]) == 1 then
    return { -1, 0, '', basis, clock }
end
local owner = redis.call('hget', KEYS[1], 'owner')
if owner == false then
    if redis.call('exists', KEYS[1]) == 1 then
        return { 0, redis.call('pttl', KEYS[1]), '', basis, clock }
    end
    if proposed then
        redis.call('hset', KEYS[1], 'owner', ARGV[1], 'token', ARGV[4])
    else
        redis.call('hset', KEYS[1], 'owner', ARGV[1])
    end
    redis.call('pexpire', KEYS[1], ARGV[2])
elseif owner ~= ARGV[1] then
    if ARGV[3] == '1' then
        redis.call('hset', KEYS[1], 'w', '1')
    end
    return { 0, redis.call('pttl', KEYS[1]), owner, basis, clock }
elseif proposed then
    redis.call('hset', KEYS[1], 'token', ARGV[4])
end
return { 1, basis, clock }
