-- Shared functions of the semaphore scripts; prepended (after fence.lua) to each of them when it is loaded.
--
-- A semaphore is ONE Redis hash (so one Redis Cluster hash slot) that up to a number of owners hold at once,
-- each with a permit and a lease of its own. Its fields:
--   ~p              the permit count; written with the first holder, and compared with every acquisition's, so
--                   that one key is used with one count only (and marks the hash as a semaphore: the
--                   reentrant and read/write scripts refuse it)
--   ~f              the last fencing token handed out for the key (see fence.lua): tokens strictly increase
--                   across all permits
--   h:<owner id>    a holder, "<deadline>:<holds>": Redis TIME milliseconds until which its permit counts (its
--                   own lease: a holder that died frees its permit then, whatever the others do), and its hold
--                   count (re-entries take no second permit). The owner id names one acquisition attempt,
--                   "<client id>:<thread id>/<attempt>", so a late or repeated command of an attempt never acts
--                   on a later one. A holder released before its minimum hold (holdAtLeast) ended is replaced by
--                   "h:~<owner id>", owned by nobody, whose deadline is the end of that minimum hold
--   q:<owner id>    a waiter, "<since>:<until>:<lease>:<wait id>" as in reentrant_common.lua: Redis TIME
--                   microseconds when it first waited (its place in the queue), milliseconds until which the
--                   entry counts (a waiter that died stops counting then), the lease it asked for, and the
--                   number its client gave this wait
-- A permit that a release frees is granted at once to the waiter that waited longest (first come, first served
-- across instances), published as "<owner id> <wait id> <token> <key>" on "<release channel>:<client id>" so
-- that only that wait wakes, and holds the permit without asking again. A permit freed by a lease that ended
-- (a holder that died) is granted by the next script that loads the hash: the waiters' own tries, which come
-- when the earliest holder's lease ends at the latest. A new owner takes a free permit only when no live waiter
-- is ahead of it. Holders and waiters whose time passed are deleted by the next full load; the key's TTL is
-- at least the latest deadline in it, and the key is deleted when no holder and no waiter is left.

-- How long (milliseconds) a waiter's entry outlives the wait it announced (it asks again at least once a
-- second, which refreshes it): a waiter that died holds nobody up for more than about a second and a half.
local SEM_ENTRY_SLACK = 500

local function sem_now()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- A holder field's deadline and hold count.
local function sem_holder(value)
    local deadline, holds = string.match(value, '^(%d+):(%d+)$')
    return tonumber(deadline) or 0, tonumber(holds) or 0
end

-- The deadline and hold count of <owner>'s permit while it holds one (its deadline not passed), else nil; and
-- whether its field is there at all (an expired holder's field stays until a full load deletes it).
local function sem_held(key, owner, now)
    local value = redis.call('HGET', key, 'h:' .. owner)
    if not value then
        return nil, nil, false
    end
    local deadline, holds = sem_holder(value)
    if deadline <= now then
        return nil, nil, true
    end
    return deadline, holds, true
end

-- The acquire result for a key that is no semaphore: -4 when it has no TTL (never expires), -5 for a
-- read/write lock, -6 with permit count 1 for a reentrant lock.
local function sem_foreign(key)
    if redis.call('PTTL', key) < 0 then
        return { -4, 0 }
    end
    if redis.call('HEXISTS', key, '~rw') == 1 then
        return { -5, 0 }
    end
    return { -6, 1 }
end

-- Loads the whole semaphore (O(holders + waiters)), deleting holders and waiters whose time passed.
local function sem_load(key, now)
    local s = { permits = 0, holders = {}, nholders = 0, waiters = {}, since = {} }
    local raw = redis.call('HGETALL', key)
    for i = 1, #raw, 2 do
        local f, v = raw[i], raw[i + 1]
        local kind = string.sub(f, 1, 2)
        if f == '~p' then
            s.permits = tonumber(v)
        elseif kind == 'h:' then
            local deadline = sem_holder(v)
            if deadline <= now then
                redis.call('HDEL', key, f)
            else
                s.holders[string.sub(f, 3)] = deadline
                s.nholders = s.nholders + 1
            end
        elseif kind == 'q:' then
            local since, untilMs, lease, wait = string.match(v, '^(%d+):(%d+):(%d+):(%d+)$')
            if not since or tonumber(untilMs) < now then
                redis.call('HDEL', key, f)
            else
                local id = string.sub(f, 3)
                s.waiters[#s.waiters + 1] = { id = id, since = tonumber(since), untilMs = tonumber(untilMs),
                                              lease = tonumber(lease), wait = wait }
                s.since[id] = tonumber(since)
            end
        end
    end
    table.sort(s.waiters, function(a, b) return a.since < b.since end)
    return s
end

-- Grants free permits to the waiters that waited longest, oldest first, as long as permits are free; only to
-- those that waited since before <before> (Redis TIME microseconds) when given.
local function sem_fill(key, s, channel, now, before)
    local left = {}
    for _, w in ipairs(s.waiters) do
        if s.nholders < s.permits and (before == nil or w.since < before) then
            redis.call('HDEL', key, 'q:' .. w.id)
            redis.call('HSET', key, 'h:' .. w.id, string.format('%d:1', now + w.lease))
            s.holders[w.id] = now + w.lease
            s.nholders = s.nholders + 1
            s.since[w.id] = nil
            local token = fence_next(key)
            -- a grant that cannot be published still stands: the waiter finds it at its next try
            notify(channel, ':' .. string.match(w.id, '^(.*):[^:]*$'),
                w.id .. ' ' .. w.wait .. ' ' .. string.format('%d', token) .. ' ' .. key)
        else
            left[#left + 1] = w
        end
    end
    s.waiters = left
end

-- The earliest holder deadline (when a permit frees at the latest), or nil when nobody holds one.
local function sem_earliest(s)
    local first = nil
    for _, d in pairs(s.holders) do
        if first == nil or d < first then first = d end
    end
    return first
end

-- Sets the key's TTL to the latest deadline of its holders and waiters, or deletes it when none is left.
local function sem_finish(key, s, now)
    local latest = 0
    for _, d in pairs(s.holders) do
        if d > latest then latest = d end
    end
    for _, w in ipairs(s.waiters) do
        if w.untilMs > latest then latest = w.untilMs end
    end
    if latest <= now then
        redis.call('DEL', key)
    else
        redis.call('PEXPIRE', key, latest - now)
    end
end

-- Makes the key live at least until <deadline> (never shortens its TTL).
local function sem_expire_at_least(key, deadline, now)
    if redis.call('PTTL', key) < deadline - now then
        redis.call('PEXPIRE', key, deadline - now)
    end
end

-- Frees the permit of holder <owner> (already deleted from the hash): grants the free permits to the waiters
-- that waited longest, and sets the TTL or deletes the key.
local function sem_free(key, channel, now)
    -- nothing but the permit count and the last token left (an uncontended release): no one to grant to
    if redis.call('HLEN', key) <= 1 + redis.call('HEXISTS', key, '~f') then
        redis.call('DEL', key)
        return
    end
    local s = sem_load(key, now)
    sem_fill(key, s, channel, now, nil)
    sem_finish(key, s, now)
end
