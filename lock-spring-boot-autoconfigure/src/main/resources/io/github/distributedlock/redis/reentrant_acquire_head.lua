-- The start of the reentrant acquire script (KEYS and ARGV: see reentrant_acquire.lua): a re-entry and a free
-- lock, the common cases, answered before the functions of notify.lua and reentrant_common.lua are made. Lua
-- makes a script's functions each time it runs, as it reaches them; the uncontended acquisition paid for five
-- it never called (with the release's head: 9.6 -> 9.0 us of Redis's time per pair, EVALSHA on fresh keys).
-- Loaded after fence.lua (the free lock's token) and followed by the shared functions, then reentrant_acquire.lua,
-- which sees its locals.
local lease = tonumber(ARGV[2])
if ARGV[3] == '1' then
    if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
        return { -2, 0 }
    end
    redis.call('hincrby', KEYS[1], ARGV[1], 1)
    -- a re-entry never shortens the lease of the outer hold
    if redis.call('pttl', KEYS[1]) < lease then
        redis.call('pexpire', KEYS[1], lease)
    end
    return { -1, 0 }
end
-- a free lock (the common case: 4 commands): the holder and its token in one write
if redis.call('exists', KEYS[1]) == 0 then
    local token = fence_clock()
    redis.call('hset', KEYS[1], ARGV[1], 1, '~f', string.format('%d', token))
    redis.call('pexpire', KEYS[1], lease)
    return { -1, token }
end
