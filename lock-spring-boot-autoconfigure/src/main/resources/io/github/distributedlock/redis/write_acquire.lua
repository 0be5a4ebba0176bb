-- Acquires the write side of a read/write lock, or re-enters it (the fence.lua and rw_common.lua functions are
-- prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of this acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds
-- ARGV[3]: "1" when the owner believes it already holds the write side (a re-entry), "0" otherwise
-- ARGV[4]: claim in milliseconds: when blocked, the owner is recorded as a waiting writer for this long,
--          so that new readers queue behind it; "0" records nothing (a single try)
-- An attempt that holds the write side already when ARGV[3] is "0" (its earlier try ran, and its reply was lost)
-- holds it once, with a new token: the same command sent twice does what it does once.
-- Blocked also while readers admitted at the last writer's release have not entered yet (phase-fair).
-- Returns {result, token}, the token 0 but when acquired (a re-entry's token is the outer hold's):
--         result -1 when acquired or re-entered, with a new fencing token when acquired;
--         -2 when ARGV[3] is "1" but the owner no longer holds it (it was lost);
--         -3 when the owner holds the read side: upgrades are refused (two upgrading readers would deadlock);
--         -4 when a key of another kind without TTL is at KEYS[1] (it never expires);
--         -5 when a reentrant lock (a key of another kind with a TTL) is at KEYS[1]: refused, nothing is changed;
--         otherwise milliseconds to wait before trying again (until the earliest blocking lease ends, and at
--         most half the claim, so that the claim is renewed before it runs out).
local key, owner, lease, claim = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4])
local now = rw_now()
local n, earliest = rw_summary(key, now)
if n and ARGV[3] ~= '1' then
    -- the fast path (see rw_common.lua): live readers and nothing else but this writer's own claim block it
    local only, v = rw_only_readers(key, n, { '~f', '~w', 'ww:' .. owner })
    if only then
        if redis.call('HEXISTS', key, 'r:' .. owner) == 1 then
            return { -3, 0 }
        end
        if not v[2] then
            redis.call('HSET', key, '~w', 1)
        end
        local wait = earliest - now
        if claim > 0 then
            -- a renewed claim keeps the moment it began
            local d, since = string.match(v[3] or '', '^(%d+):(%d+)$')
            since = (d and tonumber(d) > now) and tonumber(since) or now
            redis.call('HSET', key, 'ww:' .. owner, string.format('%d:%d', now + claim, since))
            rw_expire_at_least(key, now + claim, now)
            local half = math.floor(claim / 2)
            if wait > half then wait = half end
        end
        return { wait, 0 }
    end
end
local s = rw_load(key, now)
if s.foreign then
    return rw_foreign_result(key)
end
if s.writer == owner then
    s.wt = rw_extend(key, 'wt', s.wt, lease, now)
    if ARGV[3] ~= '1' then
        redis.call('HSET', key, 'wc', 1)
        rw_finish(key, s, now)
        return { -1, fence_next(key) }
    end
    redis.call('HINCRBY', key, 'wc', 1)
    rw_finish(key, s, now)
    return { -1, 0 }
end
if ARGV[3] == '1' then
    return { -2, 0 }
end
if s.readers[owner] then
    return { -3, 0 }
end
if not s.writer and s.nreaders == 0 and s.nadmitted == 0 then
    if s.waiting[owner] then
        redis.call('HDEL', key, 'ww:' .. owner)
        s.waiting[owner] = nil
    end
    s.writer = owner
    s.wt = now + lease
    redis.call('HSET', key, 'w', owner, 'wc', 1, 'wt', s.wt, '~rw', 1)
    rw_finish(key, s, now)
    return { -1, fence_next(key) }
end
rw_waiting(key, s)
local wait = nil
if s.writer then
    wait = s.wt - now
else
    -- until the earliest reader lease or admission ends; their releases are published sooner
    local first = rw_earliest(s.readers)
    local admitted = rw_earliest(s.admitted)
    if first == nil or (admitted ~= nil and admitted < first) then first = admitted end
    wait = first - now
end
if claim > 0 then
    -- a renewed claim keeps the moment it began
    local since = s.wsince[owner] or now
    s.waiting[owner] = now + claim
    s.wsince[owner] = since
    redis.call('HSET', key, 'ww:' .. owner, string.format('%d:%d', now + claim, since))
    rw_finish(key, s, now)
    local half = math.floor(claim / 2)
    if wait > half then wait = half end
end
return { wait, 0 }
