-- The start of the reentrant acquire script (KEYS, ARGV and replies: see reentrant_acquire.lua): a re-entry and a
-- free lock, the common cases, answered before any function of fence.lua, notify.lua and reentrant_common.lua is
-- made. Lua makes a script's functions each time it runs, as it reaches them: the uncontended acquisition paid for
-- seven it never called. Loaded first, followed by the shared functions, then reentrant_acquire.lua, which sees
-- its locals.
local lease = tonumber(ARGV[2])
if ARGV[3] == '1' then
    if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
        return { -2, 0 }
    end
    redis.call('hincrby', KEYS[1], ARGV[1], 1)
    -- a re-entry never shortens the lease of the outer hold
    if redis.call('pttl', KEYS[1]) < lease then
        redis.call('pexpire', KEYS[1], ARGV[2])
    end
    return { -1, 0 }
end
-- a free lock (the common case: 4 commands): the holder and its token in one write. The token is Redis TIME in
-- microseconds, as fence_clock() of fence.lua makes it (no '~f' to pass: the hash does not exist), written here
-- as the seconds followed by the microseconds padded to six digits: the same digits string.format('%d') gives,
-- without the arithmetic and the formatting, which cost this script more than its EXISTS does. Arguments go to
-- Redis as the strings they are ('1', ARGV[2]): Redis turns a Lua number into a string on every call. The reply
-- is the token alone, one integer: an array costs Redis more to answer and the client more to read
if redis.call('exists', KEYS[1]) == 0 then
    local now = redis.call('TIME')
    local token = now[1] .. string.sub('00000' .. now[2], -6)
    redis.call('hset', KEYS[1], ARGV[1], '1', '~f', token)
    redis.call('pexpire', KEYS[1], ARGV[2])
    return tonumber(token)
end
