-- Fencing tokens, shared by every script that makes an owner the holder of a lock; prepended when such a
-- script is loaded. A fencing token lets the resource a lock protects refuse a write from a holder whose
-- lease ran out while it was paused (M. Kleppmann, "How to do distributed locking", 2016).
--
-- Field '~f' of a lock's hash holds the last token handed out for that lock. A new token is Redis TIME in
-- microseconds, or one more than the last token if the clock has not passed it (a clock stepped back a
-- little, or two holders within one microsecond). So the tokens of one key strictly increase while its hash
-- lives; after the hash is gone (released, expired, deleted by hand, lost in a restart without persistence)
-- the clock alone keeps the next token greater than every earlier one, and nothing of a lock stays in Redis
-- for ever. The one limit: a server clock set back (or a promoted replica whose clock is behind the old
-- primary's) by more than the time since the last token, while the key is gone.
-- Microseconds since 1970 stay below 2^53 (the doubles of Lua's numbers are exact) until the year 2255.

-- The token of a lock whose hash does not exist (so there is no '~f' to pass): Redis TIME in microseconds. The
-- caller records it in '~f' with the write that creates the hash (one HSET for the holder and the token).
local function fence_clock()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- The token that follows last (the lock's '~f' as a number, nil if it has none) when Redis TIME in
-- microseconds is now: now, or last + 1 if the clock has not passed last. Also for a caller that has read '~f'
-- and the clock already (a granting release: HGETALL, TIME).
local function fence_pass(last, now)
    if last and now <= last then
        return last + 1
    end
    return now
end

-- Records token (a number) as the last token of the lock at <key> ('~f'); given holder (an owner id), it also
-- makes that owner the holder, once, in the same write. The one place a holder's token is written: a hand-over
-- (fence_next) and a grant (rl_free of reentrant_common.lua, from the token and clock it has read already).
local function fence_record(key, token, holder)
    local formatted = string.format('%d', token)
    if holder then
        redis.call('HSET', key, holder, '1', '~f', formatted)
    else
        redis.call('HSET', key, '~f', formatted)
    end
end

-- Hands out the next token of the lock at <key>, records it in '~f', and returns it. Given holder (an owner id),
-- it also makes that owner the holder, once, in the same write.
local function fence_next(key, holder)
    local token = fence_pass(tonumber(redis.call('HGET', key, '~f')), fence_clock())
    fence_record(key, token, holder)
    return token
end
