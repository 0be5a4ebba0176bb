-- Writes a string, or a field of a hash, only for a writer whose fencing token is not older than the last one
-- accepted for that key: the store's side of fencing (FencedRedis), which refuses a holder whose lock was lost.
-- KEYS[1]: the data key (a string for 'set', a hash for 'hset'); read it with plain GET / HGET
-- KEYS[2]: the key that keeps the last accepted token of KEYS[1], beside it in the same hash slot:
--          '{<data key>}:fencing-token', or '<data key>:fencing-token' when the data key has a hash tag
-- ARGV[1]: the writer's fencing token, a positive integer in decimal without leading zeros (no unit; the
--          lock's tokens are microseconds of the Redis server's clock); compared as a decimal string, so any
--          64-bit token compares exactly
-- ARGV[2]: 'set' or 'hset'
-- ARGV[3]: the value
-- ARGV[4]: the hash field ('hset' only)
-- Returns 1 when written; 0 when refused because a greater token was accepted before (nothing is changed).
-- Safe to run twice or late: a token equal to the last accepted one is the same acquisition writing again
-- (or a retry of this write) and is accepted; a token smaller than it, however late it comes, is refused.
-- The token key gets the data key's expiry after each write (none for a string, as SET clears it), so it
-- goes when the data goes.
local function older(token, last)
    if #token ~= #last then
        return #token < #last
    end
    return token < last
end
local last = redis.call('get', KEYS[2])
if last and older(ARGV[1], last) then
    return 0
end
if ARGV[2] == 'hset' then
    redis.call('hset', KEYS[1], ARGV[4], ARGV[3])
else
    redis.call('set', KEYS[1], ARGV[3])
end
local ttl = redis.call('pttl', KEYS[1])
if ttl > 0 then
    redis.call('set', KEYS[2], ARGV[1], 'px', ttl)
else
    redis.call('set', KEYS[2], ARGV[1])
end
return 1
