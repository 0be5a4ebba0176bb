-- Shared functions of the read/write lock scripts; prepended to each of them when it is loaded.
--
-- A read/write lock is ONE Redis hash (so one Redis Cluster hash slot). Its fields:
--   w        owner id of the write holder ("<client id>:<thread id>")
--   wc       the write holder's hold count
--   wt       the write holder's lease deadline, in Redis TIME milliseconds
--   r:<id>   read hold count of reader <id>
--   t:<id>   lease deadline of reader <id>, in Redis TIME milliseconds: every reader's lease is its own,
--            so a reader that died frees its share when its own lease ends, while others keep renewing
--   ww:<id>  waiting writer <id>'s claim, "<deadline>:<since>" (Redis TIME milliseconds): once it is
--            RW_WRITER_GRACE old, readers that hold nothing wait behind it, so a steady stream of readers
--            cannot starve a writer; before that, readers still enter (the read phase goes on a little)
--   rw:<id>  deadline of waiting reader <id>'s claim
--   ra:<id>  deadline of reader <id>'s admission: the readers waiting when a writer releases are admitted
--            together and enter before the next writer (phase-fair), so a writer that loops cannot keep
--            taking the lock back while they are still being woken; an admission not used expires soon
--   ~f       the last fencing token handed out for the lock (see fence.lua)
--   ~rw      marks the hash as a read/write lock (written with the first holder), so that the reentrant
--            scripts refuse it instead of writing their fields into it
--   ~w       set by an acquire that had to wait: releases publish only then (and clear it; waiters that
--            lose the race set it again), so uncontended locks cost no pub/sub traffic
-- A holder released before its minimum hold (holdAtLeast) ended is replaced by a placeholder that nobody owns:
-- writer "~", or reader "~<owner id>", whose deadline is the end of that minimum hold.
-- Holders and claims whose deadline has passed are deleted by the next script that loads the lock.
-- The key's TTL is always the latest deadline in it; the key is deleted when nothing is left.
-- Any other field means the key belongs to a reentrant lock (s.foreign): acquire scripts refuse it (-5) while
-- it has a TTL, and wait for it when it has none (a key no lock of this library wrote; it never expires).

-- How long (milliseconds) readers may still enter after a writer started waiting: a read phase that ends
-- the moment a writer waits lets each looping reader read about once per writer; a few milliseconds more
-- let them read many times, and add only that much to the writer's wait.
local RW_WRITER_GRACE = 5

local function rw_now()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Loads the lock's state, deleting expired holders and claims.
local function rw_load(key, now)
    local s = { writer = false, wt = 0, readers = {}, nreaders = 0, waiting = {}, wsince = {}, rwaiting = {}, admitted = {},
                nadmitted = 0, foreign = false, waited = false }
    local raw = redis.call('HGETALL', key)
    local counts, deadlines = {}, {}
    for i = 1, #raw, 2 do
        local f, v = raw[i], raw[i + 1]
        if f == 'w' then
            s.writer = v
        elseif f == 'wt' then
            s.wt = tonumber(v)
        elseif f == 'wc' then
            -- read where needed
        elseif f == '~w' then
            s.waited = true
        elseif f == '~f' or f == '~rw' then
            -- the last fencing token, the type marker: they live as long as the key
        elseif string.sub(f, 1, 3) == 'rw:' or string.sub(f, 1, 3) == 'ra:' then
            local d = tonumber(v)
            if d <= now then
                redis.call('HDEL', key, f)
            elseif string.sub(f, 1, 3) == 'rw:' then
                s.rwaiting[string.sub(f, 4)] = d
            else
                s.admitted[string.sub(f, 4)] = d
                s.nadmitted = s.nadmitted + 1
            end
        elseif string.sub(f, 1, 2) == 'r:' then
            counts[string.sub(f, 3)] = true
        elseif string.sub(f, 1, 2) == 't:' then
            deadlines[string.sub(f, 3)] = tonumber(v)
        elseif string.sub(f, 1, 3) == 'ww:' then
            local d, since = string.match(v, '^(%d+):(%d+)$')
            d = tonumber(d) or tonumber(v) or 0
            if d <= now then
                redis.call('HDEL', key, f)
            else
                s.waiting[string.sub(f, 4)] = d
                s.wsince[string.sub(f, 4)] = tonumber(since) or 0
            end
        else
            s.foreign = true
        end
    end
    if s.writer and s.wt <= now then
        redis.call('HDEL', key, 'w', 'wc', 'wt')
        s.writer = false
        s.wt = 0
    end
    for id, _ in pairs(counts) do
        local d = deadlines[id] or 0
        if d <= now then
            redis.call('HDEL', key, 'r:' .. id, 't:' .. id)
        else
            s.readers[id] = d
            s.nreaders = s.nreaders + 1
        end
    end
    return s
end

-- The acquire result for a key of another kind: -5 while it has a TTL (a reentrant lock holds it: the types
-- must not share a key), -4 when it has none (PTTL's -1 would read as "acquired").
local function rw_foreign_result(key)
    if redis.call('PTTL', key) < 0 then
        return { -4, 0 }
    end
    return { -5, 0 }
end

-- Marks the lock as waited for, so that the release that lets the waiter in is published.
local function rw_waiting(key, s)
    if not s.waited then
        redis.call('HSET', key, '~w', 1)
        s.waited = true
    end
end

-- Publishes the key if someone waited, and clears the mark.
local function rw_publish(key, s, channel)
    if s.waited then
        redis.call('HDEL', key, '~w')
        s.waited = false
        redis.call('PUBLISH', channel, key)
    end
end

-- Moves a holder's deadline (hash field <field>, now <deadline>) to now + lease unless it is later already;
-- returns the deadline: a re-entry or renewal never shortens a lease.
local function rw_extend(key, field, deadline, lease, now)
    if deadline < now + lease then
        redis.call('HSET', key, field, now + lease)
        return now + lease
    end
    return deadline
end

-- Records that reader <owner> waits, for <claim> milliseconds; nothing when claim is 0 (a single try).
local function rw_reader_waits(key, s, owner, claim, now)
    if claim > 0 then
        s.rwaiting[owner] = now + claim
        redis.call('HSET', key, 'rw:' .. owner, now + claim)
    end
end

-- Admits every waiting reader for <admission> milliseconds: they enter before the next writer.
local function rw_admit_readers(key, s, admission, now)
    for id, _ in pairs(s.rwaiting) do
        redis.call('HDEL', key, 'rw:' .. id)
        redis.call('HSET', key, 'ra:' .. id, now + admission)
        if not s.admitted[id] then
            s.nadmitted = s.nadmitted + 1
        end
        s.admitted[id] = now + admission
    end
    s.rwaiting = {}
end

-- The earliest deadline of the waiting writers' claims that readers wait behind (older than the grace), or nil.
local function rw_blocking_claim(s, now)
    local first = nil
    for id, d in pairs(s.waiting) do
        if now - s.wsince[id] >= RW_WRITER_GRACE and (first == nil or d < first) then first = d end
    end
    return first
end

-- The earliest of a table's deadlines, or nil.
local function rw_earliest(deadlines)
    local first = nil
    for _, d in pairs(deadlines) do
        if first == nil or d < first then first = d end
    end
    return first
end

-- Sets the key's TTL to the latest deadline in the state, or deletes the key when none is left.
local function rw_finish(key, s, now)
    local latest = 0
    if s.writer then
        latest = s.wt
    end
    for _, deadlines in ipairs({ s.readers, s.waiting, s.rwaiting, s.admitted }) do
        for _, d in pairs(deadlines) do
            if d > latest then latest = d end
        end
    end
    if latest <= now then
        redis.call('DEL', key)
    else
        redis.call('PEXPIRE', key, latest - now)
    end
end

