-- Acquires a permit of a semaphore, or re-enters the owner's (the fence.lua and sem_common.lua functions are
-- prepended).
-- KEYS[1]: the semaphore's hash (fields: see sem_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds (this holder's own deadline)
-- ARGV[3]: "1" when the owner believes it holds a permit already (a re-entry), "0" otherwise
-- ARGV[4]: how long the owner will wait at most before it tries again, in milliseconds: when no permit is free
--          for it, a positive value queues the owner, or refreshes its entry and keeps its place, until then
--          plus SEM_ENTRY_SLACK; 0 (a try without waiting) does not
-- ARGV[5]: with a positive ARGV[4]: the number the owner's client gave this wait (echoed by its grant)
-- ARGV[6]: the permit count the caller uses the key with
-- ARGV[7]: the release channel; grants to waiters ahead of the owner are published on "<ARGV[7]>:<client id>"
-- An attempt that holds a permit already when ARGV[3] is "0" (a grant it has not heard of, or its own earlier
-- try whose reply was lost) holds it once, with a new token: the same command sent twice does what it does once.
-- Returns {result, token}: result -1 when acquired or re-entered, with a new fencing token when acquired (token
--         0 for a re-entry: the outer hold's counts); -2 when ARGV[3] is "1" but the owner no longer holds a
--         permit (its lease ran out: it was lost); -4 when a key without TTL is at KEYS[1] (it never expires);
--         -5 when a read/write lock is at KEYS[1]; -6 when KEYS[1] is used with another permit count, the token
--         then being that count (1 for a reentrant lock): refused, nothing is changed; otherwise milliseconds
--         until the earliest holder's lease ends (a permit frees then at the latest).
local key, owner, lease, permits = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[6])
local now, nowMicros = sem_now()
if redis.call('EXISTS', key) == 0 then
    if ARGV[3] == '1' then
        return { -2, 0 }
    end
    redis.call('HSET', key, '~p', permits, 'h:' .. owner, string.format('%d:1', now + lease))
    redis.call('PEXPIRE', key, lease)
    return { -1, fence_next(key) }
end
local stored = tonumber(redis.call('HGET', key, '~p'))
if not stored then
    return sem_foreign(key)
end
if stored ~= permits then
    return { -6, stored }
end
local mine = redis.call('HGET', key, 'h:' .. owner)
if mine then
    local deadline, holds = sem_holder(mine)
    if deadline > now then
        -- a re-entry, or this attempt's grant or earlier try: a re-entry or renewal never shortens a lease
        if deadline < now + lease then
            deadline = now + lease
        end
        if ARGV[3] == '1' then
            redis.call('HSET', key, 'h:' .. owner, string.format('%d:%d', deadline, holds + 1))
            sem_expire_at_least(key, deadline, now)
            return { -1, 0 }
        end
        redis.call('HSET', key, 'h:' .. owner, string.format('%d:1', deadline))
        redis.call('HDEL', key, 'q:' .. owner)
        sem_expire_at_least(key, deadline, now)
        return { -1, fence_next(key) }
    end
end
if ARGV[3] == '1' then
    return { -2, 0 }
end
local s = sem_load(key, now)
-- waiters that waited longer come first: they get the permits that ended with a lease
sem_fill(key, s, ARGV[7], now, s.since[owner] or math.huge)
if s.nholders < s.permits then
    redis.call('HDEL', key, 'q:' .. owner)
    redis.call('HSET', key, 'h:' .. owner, string.format('%d:1', now + lease))
    s.holders[owner] = now + lease
    s.nholders = s.nholders + 1
    sem_finish(key, s, now)
    return { -1, fence_next(key) }
end
local earliest = sem_earliest(s)
local untilFree = (earliest ~= nil) and math.max(1, earliest - now) or 1
local wait = tonumber(ARGV[4])
if wait > 0 then
    -- numbers are formatted with %d: Lua's default would print Redis TIME in microseconds in e-notation
    local since = s.since[owner] or nowMicros
    local untilMs = now + math.min(wait, untilFree) + SEM_ENTRY_SLACK
    redis.call('HSET', key, 'q:' .. owner, string.format('%d:%d:%d:%s', since, untilMs, lease, ARGV[5]))
    local found = false
    for _, w in ipairs(s.waiters) do
        if w.id == owner then
            w.untilMs = untilMs
            found = true
        end
    end
    if not found then
        s.waiters[#s.waiters + 1] = { id = owner, since = since, untilMs = untilMs, lease = lease, wait = ARGV[5] }
    end
end
sem_finish(key, s, now)
return { untilFree, 0 }
