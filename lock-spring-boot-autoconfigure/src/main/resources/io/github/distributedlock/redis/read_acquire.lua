-- Acquires the read side of a read/write lock, or re-enters it (the fence.lua and rw_common.lua functions are
-- prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of this acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds (this reader's own deadline)
-- ARGV[3]: "1" when the owner believes it already holds the read side (a re-entry), "0" otherwise
-- ARGV[4]: claim in milliseconds: when blocked, the reader is recorded as waiting for this long, so that a
--          writer's release admits it before the next writer; "0" records nothing (a single try)
-- ARGV[5]: optional: the owner id of the write hold the same thread has on this lock (a downgrade: the writer
--          may read), or "" for none
-- An attempt that holds the read side already when ARGV[3] is "0" (its earlier try ran, and its reply was lost
-- to a dropped connection or a timeout) holds it once, with a new token: the same command sent twice does what
-- it does once.
-- Returns {result, token}, the token 0 but when acquired (a re-entry's token is the outer hold's):
--         result -1 when acquired or re-entered, with a new fencing token when acquired (also by the write holder itself: a downgrade);
--         -2 when ARGV[3] is "1" but the owner no longer holds it (it was lost);
--         -4 when a key of another kind without TTL is at KEYS[1] (it never expires);
--         -5 when a reentrant lock (a key of another kind with a TTL) is at KEYS[1]: refused, nothing is changed;
--         -6 when a semaphore is at KEYS[1], with its permit count as the token: refused, nothing is changed;
--         otherwise milliseconds to wait before trying again (until the blocking writer's lease or the
--         waiting writer's claim ends, and at most half the reader's own claim, so that it is renewed).
local key, owner, lease, claim = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4])
local now = rw_now()
local n, earliest = rw_summary(key, now)
if n then
    -- the fast path (see rw_common.lua): no reader has expired
    local v = redis.call('HMGET', key, 'r:' .. owner, 't:' .. owner)
    if v[1] and v[2] then
        rw_expire_at_least(key, rw_extend(key, 't:' .. owner, tonumber(v[2]), lease, now), now)
        if ARGV[3] ~= '1' then
            redis.call('HSET', key, 'r:' .. owner, 1)
            return { -1, fence_next(key) }
        end
        redis.call('HINCRBY', key, 'r:' .. owner, 1)
        return { -1, 0 }
    end
    if ARGV[3] ~= '1' and rw_only_readers(key, n, { '~f', '~w' }) then
        -- no writer and no claim: a new reader enters
        local deadline = now + lease
        if deadline < earliest then earliest = deadline end
        redis.call('HSET', key, 'r:' .. owner, 1, 't:' .. owner, deadline, '~n', n + 1, '~t', earliest)
        rw_expire_at_least(key, deadline, now)
        return { -1, fence_next(key) }
    end
end
local s = rw_load(key, now)
if s.foreign then
    return rw_foreign_result(key)
end
if s.readers[owner] then
    -- a reader re-enters even while a writer waits: it could not finish otherwise
    s.readers[owner] = rw_extend(key, 't:' .. owner, s.readers[owner], lease, now)
    if ARGV[3] ~= '1' then
        -- the same attempt's try again: it holds the lock once
        redis.call('HSET', key, 'r:' .. owner, 1)
        rw_finish(key, s, now)
        return { -1, fence_next(key) }
    end
    redis.call('HINCRBY', key, 'r:' .. owner, 1)
    rw_finish(key, s, now)
    return { -1, 0 }
end
if ARGV[3] == '1' then
    return { -2, 0 }
end
local blockedUntil = nil
if s.writer and s.writer ~= owner and s.writer ~= (ARGV[5] or '') then
    blockedUntil = s.wt
elseif not s.writer and not s.admitted[owner] then
    -- a reader that was not admitted at a writer's release queues behind writers waiting past the grace
    blockedUntil = rw_blocking_claim(s, now)
end
if blockedUntil then
    rw_reader_waits(key, s, owner, claim, now)
    rw_waiting(key, s)
    rw_finish(key, s, now)
    local wait = blockedUntil - now
    if claim > 0 and wait > math.floor(claim / 2) then
        wait = math.floor(claim / 2)
    end
    return { wait, 0 }
end
if s.admitted[owner] then
    redis.call('HDEL', key, 'ra:' .. owner)
    s.admitted[owner] = nil
    s.nadmitted = s.nadmitted - 1
end
if s.rwaiting[owner] then
    redis.call('HDEL', key, 'rw:' .. owner)
    s.rwaiting[owner] = nil
end
redis.call('HSET', key, 'r:' .. owner, 1, 't:' .. owner, now + lease, '~rw', 1)
s.readers[owner] = now + lease
rw_finish(key, s, now)
return { -1, fence_next(key) }
