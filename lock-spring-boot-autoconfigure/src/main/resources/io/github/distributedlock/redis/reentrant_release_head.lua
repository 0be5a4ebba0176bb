-- The start of the reentrant release script (KEYS, ARGV and replies: see reentrant_release.lua): a release that
-- leaves holds, and a last release that nobody waits for (the uncontended case: HGET, HLEN, DEL), answered before
-- the functions of notify.lua, fence.lua and reentrant_common.lua are made (Lua makes a script's functions each
-- time it runs, as it reaches them). Followed by those, then reentrant_release.lua, which sees its locals.
-- A reply is one integer, or with ARGV[4] a pair (an array reply costs Redis and the client more than an
-- integer, on every uncontended release).
local function reply(result)
    if ARGV[4] then
        return { result, 0 }
    end
    return result
end
local count = redis.call('hget', KEYS[1], ARGV[1])
if not count then
    return reply(-1)
end
local left = tonumber(count) - tonumber(ARGV[3])
if left > 0 then
    redis.call('hset', KEYS[1], ARGV[1], left)
    return reply(left)
end
-- every hash with a holder has '~f' (each path that gives the lock to an owner writes a token), so fields
-- beyond the holder and '~f' can only be waiters
local fields = redis.call('hlen', KEYS[1])
if fields <= 2 and not ARGV[4] then
    redis.call('del', KEYS[1])
    return 0
end
